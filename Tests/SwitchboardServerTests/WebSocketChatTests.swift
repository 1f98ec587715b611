import Foundation
import SwitchboardIO
import SwitchboardServer
import SwitchboardWebSocket
import SwitchboardTestSupport
import Testing

/// The WebSocket listener end to end: JSON protocol, text dialect, echo, bridging to the
/// line dialect, and the answers to bad input.
@Suite(.onTestThreads)
struct WebSocketChatTests {
  private func data(_ frame: [String: Any]) -> [String: Any] { frame["data"] as? [String: Any] ?? [:] }

  @Test func jsonProtocolFromNameToMessageAndAck() async throws {
    try await withServer { server in
      let a = try WebSocketTestClient(server.httpAddress!)
      let history = try a.nextJSON(type: "history")
      #expect((history["data"] as? [Any])?.isEmpty == true)
      #expect(history["epoch"] is String)
      #expect((history["recovered"] as? NSNumber)?.boolValue == true)
      try a.send(text: "alice")
      #expect(try a.nextJSON(type: "color")["data"] as? String != nil)
      let b = try WebSocketTestClient(server.httpAddress!, path: "/rooms/lobby")
      _ = try b.nextJSON(type: "history")
      try b.send(text: #"{"type":"join","data":{"name":"bob"}}"#)
      let joined = try a.nextJSON(type: "presence") { self.data($0)["author"] as? String == "bob" }
      #expect(data(joined)["event"] as? String == "join")
      try a.send(text: #"{"type":"message","data":{"text":"hi bob","ref":"r1"}}"#)
      // Every member, the sender included, receives the message (chat-server.js).
      let mine = data(try a.nextJSON(type: "message"))
      #expect(mine["text"] as? String == "hi bob")
      #expect(mine["author"] as? String == "alice")
      #expect((mine["id"] as? NSNumber)?.intValue == 1)
      let ack = data(try a.nextJSON(type: "ack"))
      #expect(ack["ref"] as? String == "r1")
      #expect((ack["id"] as? NSNumber)?.intValue == 1)
      #expect(data(try b.nextJSON(type: "message"))["text"] as? String == "hi bob")
      try b.send(text: "plain text after the name is a message")
      #expect(data(try a.nextJSON(type: "message"))["text"] as? String == "plain text after the name is a message")
    }
  }

  @Test func webSocketAndLineMembersShareTheRoom() async throws {
    try await withServer { server in
      let ws = try WebSocketTestClient(server.httpAddress!)
      try ws.send(text: "webuser")
      _ = try ws.nextJSON(type: "color")
      let tcp = try LineClient(server.tcpAddress!)
      try tcp.sendLine("iam:ncuser")
      let joined = try ws.nextJSON(type: "presence") { self.data($0)["author"] as? String == "ncuser" }
      #expect(data(joined)["event"] as? String == "join")
      try tcp.sendLine("hello from nc")
      let m = data(try ws.nextJSON(type: "message"))
      #expect(m["author"] as? String == "ncuser")
      #expect(m["text"] as? String == "hello from nc")
      try ws.send(text: #"{"type":"message","data":{"text":"hello from the web"}}"#)
      try tcp.expectLine("webuser: hello from the web")
      _ = try ws.nextJSON(type: "message")  // its own, as in chat-server.js
      let udp = try DatagramPeer(server.udpAddress!)
      try udp.prove()
      try udp.send("iam:udpuser")
      try udp.send("and from udp")
      #expect(data(try ws.nextJSON(type: "message"))["text"] as? String == "and from udp")
      try ws.send(text: "to everyone")
      try udp.expect { $0 == "webuser: to everyone\n" }
      ws.socket.reset()
      try tcp.expectLine("* webuser has left")
    }
  }

  @Test func textDialectCarriesExactlyTheText() async throws {
    try await withServer { server in
      let quiet = try WebSocketTestClient(server.httpAddress!, path: "/rooms/lobby?format=text")
      let loud = try WebSocketTestClient(server.httpAddress!, path: "/rooms/lobby?format=text&notify_self=1")
      try await eventually { server.hub.counts.members == 2 }
      try quiet.send(text: "one")
      #expect(try loud.nextText() == "one")
      try loud.send(text: "two")
      #expect(try loud.nextText() == "two")
      #expect(try quiet.nextText() == "two")
      try quiet.send(binary: [1, 2, 3])
      guard case .binary(let bytes) = try loud.next() else {
        Issue.record("binary not relayed")
        return
      }
      #expect(bytes == [1, 2, 3])
    }
  }

  @Test func joinWithSinceReplaysWithoutGapOrDuplicate() async throws {
    try await withServer { server in
      let a = try WebSocketTestClient(server.httpAddress!, path: "/rooms/dev")
      _ = try a.nextJSON(type: "history")
      try a.send(text: "writer")
      for i in 1...5 { try a.send(text: #"{"type":"message","data":{"text":"m\#(i)"}}"#) }
      for _ in 1...5 { _ = try a.nextJSON(type: "message") }
      let b = try WebSocketTestClient(server.httpAddress!, path: "/rooms/dev?since=3")
      let replay = try b.nextJSON(type: "history")
      let ids = (replay["data"] as? [[String: Any]] ?? []).compactMap { ($0["id"] as? NSNumber)?.intValue }
      #expect(ids == [4, 5])
      #expect((replay["recovered"] as? NSNumber)?.boolValue == true)
      try b.send(text: #"{"type":"join","data":{"room":"dev","since":0}}"#)
      let all = try b.nextJSON(type: "history")
      #expect((all["data"] as? [Any])?.count == 5)
      try b.send(text: #"{"type":"join","data":{"room":"dev","since":99}}"#)
      let future = try b.nextJSON(type: "history")
      #expect((future["recovered"] as? NSNumber)?.boolValue == false)
    }
  }

  @Test func echoEndpointReturnsEverythingAsItCame() async throws {
    try await withServer { server in
      let echo = try WebSocketTestClient(server.httpAddress!, path: "/echo")
      try echo.send(text: "héllo")
      #expect(try echo.nextText() == "héllo")
      try echo.send(binary: Array(0..<200).map { UInt8($0) })
      guard case .binary(let bytes) = try echo.next() else {
        Issue.record("no binary echo")
        return
      }
      #expect(bytes.count == 200)
      #expect(server.hub.counts.members == 0)
    }
  }

  @Test func badInputGetsTheDocumentedAnswer() async throws {
    try await withServer({ $0.maxMessageSize = 1024 }) { server in
      let a = try WebSocketTestClient(server.httpAddress!)
      _ = try a.nextJSON(type: "history")
      try a.send(text: #"{"type":"frob"}"#)
      #expect(data(try a.nextJSON(type: "error"))["code"] as? String == "unknown_type")
      try a.send(text: #"{"type":"message","data":{"nope":1}}"#)
      #expect(data(try a.nextJSON(type: "error"))["code"] as? String == "invalid_data")
      // Still open after errors.
      try a.send(text: "stillhere")
      _ = try a.nextJSON(type: "color")
      // Too big → 1009.
      try a.send(text: String(repeating: "x", count: 2000))
      #expect(try a.nextClose() == .messageTooBig)
      // Invalid UTF-8 → 1007 (a masked text frame with bytes FF FE).
      let b = try WebSocketTestClient(server.httpAddress!)
      try b.sendRaw([0x81, 0x82, 0, 0, 0, 0, 0xFF, 0xFE])
      #expect(try b.nextClose() == .invalidFramePayloadData)
      // An unmasked client frame → 1002.
      let c = try WebSocketTestClient(server.httpAddress!)
      try c.sendRaw([0x81, 0x02, 0x68, 0x69])
      #expect(try c.nextClose() == .protocolError)
    }
  }

  @Test func badUpgradesGetHTTPErrors() async throws {
    try await withServer { server in
      let raw = try LineClient(server.httpAddress!)
      try raw.send(
        "GET /nowhere HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
      )
      try raw.expectLine("HTTP/1.1 404 Not Found\r")
      let old = try LineClient(server.httpAddress!)
      try old.send(
        "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n\r\n"
      )
      try old.expectLine("HTTP/1.1 426 Upgrade Required\r")
      let garbage = try LineClient(server.httpAddress!)
      try garbage.send("BLAH\r\n\r\n")
      try garbage.expectLine { $0.hasPrefix("HTTP/1.1 400") }
      // The room name is percent-decoded before it is checked: `a b` is not a room name.
      for target in ["/rooms/a%20b", "/rooms/%zz", "/?format=xml"] {
        let bad = try LineClient(server.httpAddress!)
        try bad.send(
          "GET \(target) HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        try bad.expectLine("HTTP/1.1 400 Bad Request\r")
      }
    }
  }

  @Test func theWebPageIsServedOnBothPorts() async throws {
    try await withServer { server in
      for address in [server.httpAddress!, server.tcpAddress!] {
        let page = try LineClient(address)
        try page.send("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        try page.expectLine("HTTP/1.1 200 OK\r")
        try page.expectLine { $0.contains("id=\"messages\"") }
      }
      // And the line port upgrades a browser's WebSocket too.
      let ws = try WebSocketTestClient(server.tcpAddress!)
      _ = try ws.nextJSON(type: "history")
    }
  }

  @Test func silentPeersArePingedAndDroppedLivePeersKept() async throws {
    // A live peer must answer a ping before the next one: 1.5 s leaves the test thread
    // time for that on a loaded machine, and drops the silent one within seconds.
    try await withServer({ $0.webSocketPingInterval = .milliseconds(1500) }) { server in
      // Both handshakes completed (101 received), so both sessions exist on the server.
      let live = try WebSocketTestClient(server.httpAddress!)
      let dead = try WebSocketTestClient(server.httpAddress!)
      try live.send(text: "live")
      try dead.send(text: "dead")
      // `live` keeps answering pings (its reads process them); `dead` never reads.
      let deadline = ContinuousClock.now + .seconds(20)
      while ContinuousClock.now < deadline,
        server.metrics.webSocketOpen.load(ordering: .relaxed) != 1 || server.hub.who(room: "lobby") != ["live"]
      {
        _ = try? live.next(timeout: .milliseconds(50))
      }
      #expect(server.hub.who(room: "lobby") == ["live"])
      #expect(server.metrics.webSocketOpen.load(ordering: .relaxed) == 1)
      _ = dead
    }
  }
}
