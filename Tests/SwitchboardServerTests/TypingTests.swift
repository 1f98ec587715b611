import Foundation
import SwitchboardIO
import SwitchboardTestSupport
import Testing

@testable import SwitchboardServer

/// Typing indicators and the `features` negotiation of the JSON protocol
/// (docs/PROTOCOLS.md, "Features" and "Typing"), with real sockets on loopback: typing
/// reaches only the members that enabled it, never the typer, never history; it ends with
/// a message, a leave or on its own; floods are dropped and counted.
@Suite(.onTestThreads)
struct TypingTests {
  /// A JSON member of the lobby called `name`, past its `color` frame; with `typing`, past
  /// the `features` answer that enabled it.
  private func member(_ server: ChatServer, _ name: String, typing: Bool) throws -> WebSocketTestClient {
    let ws = try WebSocketTestClient(server.httpAddress!)
    try ws.send(text: name)
    _ = try ws.nextJSON(type: "color")
    if typing {
      try ws.send(text: #"{"type":"features","data":["typing","no-such-feature"]}"#)
      let answer = try ws.nextJSON(type: "features")
      let data = try #require(answer["data"] as? [String: Any])
      #expect(data["version"] as? Int == 2)
      #expect(data["supported"] as? [String] == ["typing"])
      #expect(data["enabled"] as? [String] == ["typing"])
    }
    return ws
  }

  /// The frames `ws` gets up to and including the next `message` frame.
  private func framesUntilMessage(_ ws: WebSocketTestClient) throws -> [[String: Any]] {
    var frames: [[String: Any]] = []
    while true {
      let text = try ws.nextText()
      let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
      frames.append(object)
      if object["type"] as? String == "message" { return frames }
    }
  }

  private func typingFrame(_ ws: WebSocketTestClient, author: String, active: Bool) throws {
    // Another author's frames are passed over.
    let frame = try ws.nextJSON(type: "typing", timeout: .seconds(8)) {
      ($0["data"] as? [String: Any])?["author"] as? String == author
    }
    let data = try #require(frame["data"] as? [String: Any])
    #expect(data["room"] as? String == "lobby")
    #expect(data["active"] as? Bool == active)
  }

  @Test func typingReachesMembersThatAskedAndEndsWithAMessage() async throws {
    try await withServer { server in
      let alice = try member(server, "alice", typing: true)
      let carol = try member(server, "carol", typing: false)
      let bob = try member(server, "bob", typing: true)
      try bob.send(text: #"{"type":"typing","data":{"active":true}}"#)
      try typingFrame(alice, author: "bob", active: true)
      try bob.send(text: #"{"type":"message","data":{"text":"hello"}}"#)
      // The message ends bob's typing: the stop comes first, then the message.
      let aliceFrames = try framesUntilMessage(alice)
      let stops = aliceFrames.filter { $0["type"] as? String == "typing" }
      #expect(stops.count == 1)
      #expect((stops.first?["data"] as? [String: Any])?["active"] as? Bool == false)
      // A member that never sent `features` gets no typing frame (seed compatibility); the
      // typer gets none of its own.
      for frames in [try framesUntilMessage(carol), try framesUntilMessage(bob)] {
        #expect(!frames.contains { $0["type"] as? String == "typing" })
      }
      // Never in history: a fresh join's history holds the message alone.
      let dave = try WebSocketTestClient(server.httpAddress!)
      try dave.send(text: #"{"type":"join","data":{"name":"dave","room":"lobby"}}"#)
      let history = try dave.nextJSON(type: "history")
      let items = try #require(history["data"] as? [[String: Any]])
      #expect(items.map { $0["text"] as? String } == ["hello"])
      let metrics = String(
        decoding: try apiRequest(server.httpAddress!, "GET", "/metrics", key: nil).body, as: UTF8.self)
      #expect(metrics.contains("switchboard_typing_events_total 2\n"))
    }
  }

  @Test func typingExpiresOnItsOwnAndEndsWhenTheTyperLeaves() async throws {
    try await withServer { server in
      let alice = try member(server, "alice", typing: true)
      var bob: WebSocketTestClient? = try member(server, "bob", typing: false)
      let start = ContinuousClock.now
      try bob?.send(text: #"{"type":"typing","data":{"active":true}}"#)
      try typingFrame(alice, author: "bob", active: true)
      try typingFrame(alice, author: "bob", active: false)
      let waited = ContinuousClock.now - start
      #expect(waited >= .milliseconds(4_500) && waited < .seconds(8))
      // Typing again, then gone: the leave ends it.
      try bob?.send(text: #"{"type":"typing","data":{"active":true}}"#)
      try typingFrame(alice, author: "bob", active: true)
      bob = nil  // its socket closes
      try typingFrame(alice, author: "bob", active: false)
    }
  }

  @Test func aTypingFloodIsDroppedAndCountedWithoutAnError() async throws {
    try await withServer { server in
      let alice = try member(server, "alice", typing: true)
      let bob = try member(server, "bob", typing: false)
      try bob.send(texts: Array(repeating: #"{"type":"typing","data":{"active":true}}"#, count: 20))
      try bob.send(text: #"{"type":"message","data":{"text":"done"}}"#)
      let frames = try framesUntilMessage(alice)
      // One start relayed, the message's stop; the 19 others dropped within the second.
      #expect(frames.filter { $0["type"] as? String == "typing" }.count == 2)
      #expect(!(try framesUntilMessage(bob)).contains { $0["type"] as? String == "error" })
      let metrics = String(
        decoding: try apiRequest(server.httpAddress!, "GET", "/metrics", key: nil).body, as: UTF8.self)
      #expect(metrics.contains("switchboard_typing_dropped_total 19\n"))
    }
  }

  @Test func badFeaturesAndTypingFramesAreAnsweredWithErrors() async throws {
    try await withServer { server in
      let ws = try WebSocketTestClient(server.httpAddress!)
      // Typing before joining any room: nothing happens, no error.
      try ws.send(text: #"{"type":"typing","data":{"active":true}}"#)
      try ws.send(text: #"{"type":"features","data":"typing"}"#)
      let error = try ws.nextJSON(type: "error")
      #expect((error["data"] as? [String: Any])?["code"] as? String == "invalid_data")
      try ws.send(text: #"{"type":"typing","data":{"active":"yes"}}"#)
      let second = try ws.nextJSON(type: "error")
      #expect((second["data"] as? [String: Any])?["code"] as? String == "invalid_data")
      // An empty list turns typing off again.
      try ws.send(text: #"{"type":"features","data":[]}"#)
      let answer = try ws.nextJSON(type: "features")
      #expect((answer["data"] as? [String: Any])?["enabled"] as? [String] == [])
    }
  }

  @Test func lineMembersSeeTypingOnlyWithTypingOnAndCanSignalIt() async throws {
    try await withServer { server in
      let alice = try member(server, "alice", typing: true)
      let quiet = try LineClient(server.tcpAddress!)
      try quiet.join(as: "quiet")
      let liner = try LineClient(server.tcpAddress!)
      try liner.join(as: "liner")
      try liner.sendLine("/typing on")
      try liner.expectLine("* typing notices on")
      let bob = try member(server, "bob", typing: false)
      try liner.expectLine("* bob has joined")
      try quiet.expectLine("* bob has joined")
      try bob.send(text: #"{"type":"typing","data":{"active":true}}"#)
      try bob.send(text: #"{"type":"message","data":{"text":"hi"}}"#)
      // The start as a notice, nothing for the stop; a member without `/typing on` sees
      // the plain lines only.
      #expect(try liner.readLine() == "* bob is typing")
      #expect(try liner.readLine() == "bob: hi")
      #expect(try quiet.readLine() == "bob: hi")
      // A line member signals with `/typing`; JSON members that asked see it.
      try liner.sendLine("/typing")
      try typingFrame(alice, author: "liner", active: true)
      try liner.sendLine("/typing off")
      try liner.expectLine("* typing notices off")
      try liner.sendLine("/typing sideways")
      try liner.expectLine("! usage: /typing [on|off]")
      try liner.sendLine("msg:done")
      try typingFrame(alice, author: "liner", active: false)
    }
  }

  @Test func udpHasNoTypingAndAnswersItAsAnUnknownCommand() async throws {
    try await withServer { server in
      let udp = try DatagramPeer(server.udpAddress!)
      try udp.prove()
      try udp.send("iam:udpuser")
      try udp.send("/typing on")
      try udp.expect { $0 == "! unknown command /typing (try /help)\n" }
      try udp.send("/typing")
      try udp.expect { $0 == "! unknown command /typing (try /help)\n" }
    }
  }
}
