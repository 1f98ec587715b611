import Foundation
import SwitchboardClient
import SwitchboardServer
import Synchronization
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// ``ChatClient`` against the real in-process server over each transport.
@Suite(.onTestThreads) struct ChatClientTests {
  @Test func webSocketClientsJoinSendAndReceive() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let a = try ChatProbe(wsURL(server), name: "ada")
    try await a.waitReady()
    let b = try ChatProbe(wsURL(server), name: "bob")
    try await b.waitReady()
    // The platform's transport (Network.framework's on Apple platforms, which reports only
    // the response fields beyond the handshake's own: the test below has the headers).
    if case .connected(let info) = try await b.waitFor("connected", { if case .connected = $0 { true } else { false } }) {
      #expect(info.transport == .ws)
    }
    try await a.waitFor("bob's join") {
      if case .presence(let p) = $0, p.kind == .join, p.author == "bob" { return true }
      return false
    }
    let id = try await a.client.send("hello from ada")
    #expect(id != nil)
    let seenByB = try await b.waitForMessage("hello from ada")
    #expect(seenByB.author == "ada")
    #expect(!seenByB.isMine)
    #expect(seenByB.id == id)
    let seenByA = try await a.waitForMessage("hello from ada")
    #expect(seenByA.isMine)
    try await b.client.send("hi ada")
    #expect(try await a.waitForMessage("hi ada").isMine == false)
    await b.stop()
    try await a.waitFor("bob's leave") {
      if case .presence(let p) = $0, p.kind == .leave, p.author == "bob" { return true }
      return false
    }
    await a.stop()
  }

  /// The POSIX WebSocket transport hands over every field of the upgrade response (the
  /// default on Linux; chosen here so that it is this transport on Apple platforms too).
  @Test func thePOSIXWebSocketTransportReportsTheUpgradeResponsesHeaders() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    var configuration = ChatClient.Configuration.forTesting
    configuration.transport = ChatTransports.posix
    let probe = try ChatProbe(wsURL(server), name: "ada", configuration: configuration)
    let event = try await probe.waitFor("connected") { if case .connected = $0 { true } else { false } }
    if case .connected(let info) = event {
      #expect(info.headers.contains { $0.name.lowercased() == "upgrade" && $0.value.lowercased() == "websocket" })
      #expect(info.transport == .ws)
    }
    await probe.stop()
  }

  @Test func lineClientTalksToWebSocketClient() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let web = try ChatProbe(wsURL(server, path: "/rooms/dev"), name: "webby")
    try await web.waitReady()
    let line = try ChatProbe(tcpURL(server), name: "liner", room: "dev")
    try await line.waitConnected()
    try await web.waitFor("liner's join") {
      if case .presence(let p) = $0, p.kind == .join, p.author == "liner" { return true }
      return false
    }
    try await line.client.send("over tcp")
    let got = try await web.waitForMessage("over tcp")
    #expect(got.author == "liner")
    #expect(got.room == "dev")
    // The line dialect does not echo: the client reports its own message itself.
    #expect(try await line.waitForMessage("over tcp").isMine)
    // A text with line breaks is one message, as over WebSocket (sent as `emsg:`): a
    // second line that looks like a command is part of the text, not a rename.
    try await line.client.send("first line\r\n/nick mallory")
    #expect(try await web.waitForMessage("first line\r\n/nick mallory").author == "liner")
    try await web.client.send("back at you")
    let back = try await line.waitForMessage("back at you")
    #expect(back.author == "webby")
    #expect(!back.isMine)
    await web.stop()
    try await line.waitFor("webby's leave") {
      if case .presence(let p) = $0, p.kind == .leave, p.author == "webby" { return true }
      return false
    }
    await line.stop()
  }

  @Test func datagramClientTalksToWebSocketClient() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let web = try ChatProbe(wsURL(server), name: "webby")
    try await web.waitReady()
    let udp = try ChatProbe(udpURL(server), name: "dgram")
    try await udp.waitConnected()
    try await udp.client.send("over udp")
    let got = try await web.waitForMessage("over udp")
    #expect(got.author == "dgram")
    #expect(try await udp.waitForMessage("over udp").isMine)
    try await web.client.send("reply by ws")
    let back = try await udp.waitForMessage("reply by ws")
    #expect(back.author == "webby")
    // The echo is consumed, never an event.
    #expect(!udp.messages.contains { $0.text.hasPrefix("Server received") })
    await udp.stop()
    await web.stop()
  }

  /// A UDP member the server forgot (quiet past its member TTL; a restart is the same) is
  /// offered a code again: the client proves itself again on its own and is back under its
  /// name, with no reconnect.
  @Test func aDatagramClientTheServerForgotProvesItselfAgain() async throws {
    let server = try startServer { $0.udpMemberTTL = .seconds(1) }
    defer { server.shutdown() }
    let web = try ChatProbe(wsURL(server), name: "webby")
    try await web.waitReady()
    let udp = try ChatProbe(udpURL(server), name: "dgram")
    try await udp.waitConnected()
    try await udp.client.send("before the server forgot")
    _ = try await web.waitForMessage("before the server forgot")
    try await eventually { server.metrics.udp.members.load(ordering: .relaxed) == 0 }
    // Echoed but not published (the server no longer knows the address); its offer
    // follows the echo, and the client answers it.
    try await udp.client.send("this one may be lost")
    try await eventually { server.metrics.udp.proofs.load(ordering: .relaxed) == 2 }
    try await udp.client.send("after proving again")
    #expect(try await web.waitForMessage("after proving again").author == "dgram")
    #expect(!udp.events.contains { if case .disconnected = $0 { true } else { false } })
    await udp.stop()
    await web.stop()
  }

  @Test func sendsBeyondTheQueueBoundThrow() async throws {
    let nobody = try RefusingPort()
    let port = nobody.port
    var config = ChatClient.Configuration.forTesting
    config.maxQueuedMessages = 3
    config.reconnect = ReconnectPolicy(initialDelay: .seconds(5))
    let probe = try ChatProbe("ws://127.0.0.1:\(port)/", name: "q", configuration: config)
    let client = probe.client
    let queued = (0..<3).map { i in Task { try await client.send("m\(i)") } }
    try await eventually("3 queued") { client.queuedCount == 3 }
    await #expect(throws: ChatClientError.queueFull) { try await client.send("one too many") }
    await probe.stop()
    for task in queued {
      await #expect(throws: ChatClientError.closed) { try await task.value }
    }
  }

  @Test func manyTasksSendingOnOneClient() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let sender = try ChatProbe(wsURL(server), name: "busy")
    let reader = try ChatProbe(wsURL(server), name: "reader")
    try await sender.waitReady()
    try await reader.waitReady()
    let client = sender.client
    let ids = try await withThrowingTaskGroup(of: [UInt64].self) { group in
      for t in 0..<8 {
        group.addTask {
          var ids: [UInt64] = []
          for i in 0..<50 { ids.append(try await client.send("t\(t)-\(i)")!) }
          return ids
        }
      }
      var all: [UInt64] = []
      for try await ids in group {
        #expect(ids == ids.sorted())  // one task's messages keep their order
        all += ids
      }
      return all
    }
    #expect(Set(ids).count == 400)
    try await eventually("reader has 400") { reader.messages.count >= 400 }
    let received = reader.messages.compactMap(\.id)
    #expect(received == received.sorted())
    #expect(Set(received) == Set(ids))
    await sender.stop()
    await reader.stop()
  }
}
