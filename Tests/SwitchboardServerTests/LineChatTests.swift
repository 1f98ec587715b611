import Foundation
import SwitchboardIO
import SwitchboardServer
import SwitchboardTestSupport
import Testing

/// The TCP line dialect end to end, over real sockets.
@Suite(.onTestThreads)
struct LineChatTests {
  @Test func manyClientsInARoomSeeEachOthersMessagesButNotTheirOwn() async throws {
    try await withServer { server in
      let address = server.tcpAddress!
      let clients = try (0..<20).map { _ in try LineClient(address) }
      for (i, c) in clients.enumerated() { try c.sendLine("iam:user\(i)") }
      try await eventually("all announced") { server.hub.who(room: "lobby").count == 20 }
      for (i, c) in clients.enumerated() { try c.sendLine("hello from \(i)") }
      for (i, c) in clients.enumerated() {
        var expected = Set((0..<20).filter { $0 != i }.map { "user\($0): hello from \($0)" })
        while !expected.isEmpty {
          let line = try c.readLine()
          #expect(line != "user\(i): hello from \(i)", "own message echoed")
          expected.remove(line)
        }
      }
    }
  }

  @Test func textWithoutNewlineBecomesAMessageWhenTheSenderPauses() async throws {
    try await withServer { server in
      let reader = try LineClient(server.tcpAddress!)
      try reader.sendLine("iam:reader")
      try await eventually { server.hub.who(room: "lobby") == ["reader"] }
      let phone = try LineClient(server.tcpAddress!)
      try phone.send("hello from the phone")  // NWConnection style: no newline
      try reader.expectLine { $0.hasSuffix(": hello from the phone") }
      // Two sends separated by a pause are two messages.
      try phone.send("second")
      try reader.expectLine { $0.hasSuffix(": second") }
    }
  }

  @Test func anAuthLineIsAnsweredAndNeverPublished() async throws {
    try await withServer { server in
      let reader = try LineClient(server.tcpAddress!)
      try reader.sendLine("iam:reader")
      try await eventually { server.hub.who(room: "lobby") == ["reader"] }
      let writer = try LineClient(server.tcpAddress!)
      try writer.send("auth:secret-token\niam:w\nafter\n")
      try writer.expectLine("* this server does not check tokens; auth: ignored")
      try reader.expectLine("* w has joined")
      // The next line the room sees is the message after it: the token never reached it.
      try reader.expectLine("w: after")
    }
  }

  @Test func crlfAndLfBothEndLines() async throws {
    try await withServer { server in
      let reader = try LineClient(server.tcpAddress!)
      try await eventually { server.hub.counts.members == 1 }
      let writer = try LineClient(server.tcpAddress!)
      try writer.send("iam:w\r\none\r\ntwo\nthree\r\n")
      try reader.expectLine("* w has joined")
      try reader.expectLine("w: one")
      try reader.expectLine("w: two")
      try reader.expectLine("w: three")
    }
  }

  @Test func joinIsAnnouncedWithTheNameFromIamOrAsClientNAfterTheWait() async throws {
    try await withServer { server in
      let observer = try LineClient(server.tcpAddress!)
      try observer.sendLine("iam:observer")
      try await eventually { server.hub.who(room: "lobby") == ["observer"] }
      let named = try LineClient(server.tcpAddress!)
      try named.sendLine("iam:alice")
      try observer.expectLine("* alice has joined")
      let silent = try LineClient(server.tcpAddress!)
      let joined = try observer.expectLine { $0.hasPrefix("* Client ") }
      #expect(joined.hasSuffix(" has joined"))
      let clientName = String(joined.dropFirst(2).dropLast(" has joined".count))
      try silent.sendLine("iam:bob")
      try observer.expectLine("* \(clientName) is now bob")
      try silent.sendLine("msg:hi there")
      try observer.expectLine("bob: hi there")
      silent.reset()
      try observer.expectLine("* bob has left")
    }
  }

  @Test func aOneMebibyteLineIsRejectedAndTheConnectionStaysUsable() async throws {
    // The mebibyte goes out in pieces: no pause may end it early on a loaded machine.
    try await withServer({ $0.linePause = .seconds(30) }) { server in
      let reader = try LineClient(server.tcpAddress!)
      try reader.sendLine("iam:reader")
      try await eventually { server.hub.who(room: "lobby") == ["reader"] }
      let writer = try LineClient(server.tcpAddress!)
      try writer.sendLine("iam:writer")
      try reader.expectLine("* writer has joined")
      try writer.send([UInt8](repeating: 0x61, count: 1 << 20) + [0x0A])
      let error = try writer.expectLine { $0.hasPrefix("! ") }
      #expect(error == "! line too long (limit 65536 bytes)")
      try writer.sendLine("still here")
      try reader.expectLine("writer: still here")
      #expect(server.metrics.linesTooLong.load(ordering: .relaxed) == 1)
      // Nothing of the long line reached the room.
      let other = try LineClient(server.tcpAddress!)
      try other.sendLine("/history")
      try other.expectLine { $0.hasPrefix("[1] writer: still here") }
    }
  }

  @Test func invalidUTF8IsReplacedNotFatal() async throws {
    try await withServer { server in
      let reader = try LineClient(server.tcpAddress!)
      try reader.sendLine("iam:reader")
      try await eventually { server.hub.who(room: "lobby") == ["reader"] }
      let writer = try LineClient(server.tcpAddress!)
      try writer.sendLine("iam:w")
      try reader.expectLine("* w has joined")
      try writer.send([0xFF, 0xFE, 0x68, 0x69, 0xC3, 0x0A])
      let line = try reader.expectLine { $0.hasPrefix("w: ") }
      #expect(line == "w: \u{FFFD}\u{FFFD}hi\u{FFFD}")
      try writer.sendLine("ok")
      try reader.expectLine("w: ok")
    }
  }

  @Test func aClientThatNeverReadsIsDroppedWhileOthersKeepReceiving() async throws {
    try await withServer({
      $0.maxBufferedPerConnection = 256 * 1024
      // Lines end at their newline only: a full send buffer can cut the writer's 2 KB
      // lines, and on a loaded machine the rest can come later than the 50 ms pause
      // that ends a message without a newline.
      $0.linePause = .seconds(30)
    }) { server in
      let stuck = try LineClient(server.tcpAddress!)
      stuck.setReceiveBuffer(4096)
      try stuck.sendLine("iam:stuck")
      let reader = try LineClient(server.tcpAddress!)
      try reader.sendLine("iam:reader")
      let writer = try LineClient(server.tcpAddress!)
      try writer.sendLine("iam:writer")
      try await eventually { server.hub.who(room: "lobby").count == 3 }
      let payload = String(repeating: "x", count: 2000)
      // ~12 MB to every member: past the kernel's socket buffers (up to 4 MiB on
      // loopback) and far over the 256 KiB cap.
      let count = 6000
      var received = 0
      var sawLeave = false
      func read(upTo target: Int) throws {
        while received < target {
          let line = try reader.readLine(timeout: .seconds(10))
          if line.hasPrefix("writer: ") {
            #expect(line.hasPrefix("writer: \(received) "))
            received += 1
          } else if line == "* stuck has left" {
            sawLeave = true
          }
        }
      }
      for i in 0..<count {
        try writer.sendLine("\(i) \(payload)")
        // Keep the reader drained as a healthy client would, and never more than 64
        // lines (128 KB) behind the writer: on a loaded machine the test's thread may
        // otherwise drain it too late, and the server (rightly) drops it too. The stuck
        // member still falls 12 MB behind.
        while reader.fill(timeout: .zero) {}
        if i % 16 == 15 { try read(upTo: i - 63) }
      }
      try read(upTo: count)
      try await eventually("slow consumer dropped") {
        server.metrics.slowConsumers.load(ordering: .relaxed) == 1
      }
      if !sawLeave { try reader.expectLine("* stuck has left") }
    }
  }

  @Test func abruptResetsLeaveTheServerHealthy() async throws {
    try await withServer { server in
      let observer = try LineClient(server.tcpAddress!)
      try observer.sendLine("iam:observer")
      var clients: [LineClient] = []
      for i in 0..<50 {
        let c = try LineClient(server.tcpAddress!)
        try c.sendLine("iam:r\(i)")
        try c.send("half a line without end")
        clients.append(c)
      }
      try await eventually { server.hub.who(room: "lobby").count == 51 }
      for c in clients { c.reset() }
      clients.removeAll()
      try await eventually("members gone") { server.hub.who(room: "lobby") == ["observer"] }
      try await eventually("sessions closed") { server.metrics.tcpOpen.load(ordering: .relaxed) == 1 }
      let late = try LineClient(server.tcpAddress!)
      try late.sendLine("iam:late")
      try observer.expectLine("* late has joined")
    }
  }

  @Test func aThousandConcurrentConnectionsJoinAndLeave() async throws {
    // All from 127.0.0.1: past the default per-address cap (256).
    try await withServer({ $0.limits.maxConnectionsPerIP = 0 }) { server in
      var clients: [LineClient] = []
      for i in 0..<1000 {
        let c = try LineClient(server.tcpAddress!)
        try c.sendLine("iam:c\(i)")
        clients.append(c)
      }
      try await eventually(timeout: .seconds(20), "1000 members") {
        server.hub.who(room: "lobby").count == 1000
      }
      try clients[0].sendLine("broadcast to all")
      for c in clients.dropFirst().prefix(1000) {
        try c.expectLine(timeout: .seconds(20)) { $0 == "c0: broadcast to all" }
      }
      clients.removeAll()  // closes every socket (FIN)
      try await eventually(timeout: .seconds(20), "all left") { server.hub.counts.members == 0 }
      // A session leaves the hub before its connection is counted closed: waited for too.
      try await eventually(timeout: .seconds(20), "all closed") { server.metrics.tcpOpen.load(ordering: .relaxed) == 0 }
    }
  }

  @Test func slashCommands() async throws {
    try await withServer { server in
      let a = try LineClient(server.tcpAddress!)
      try a.sendLine("iam:alice")
      try await eventually { server.hub.who(room: "lobby") == ["alice"] }
      let b = try LineClient(server.tcpAddress!)
      try b.sendLine("iam:bob")
      try a.expectLine("* bob has joined")
      try a.sendLine("/who")
      try a.expectLine("* in lobby (2): alice, bob")
      try a.sendLine("/me waves")
      try b.expectLine("* alice waves")
      try a.sendLine("/nick carol")
      try a.expectLine("* you are now carol")
      try b.expectLine("* alice is now carol")
      try a.sendLine("/join dev")
      try a.expectLine("* you are now in dev (1 member)")
      try b.expectLine("* carol has left")
      try a.sendLine("/rooms")
      try a.expectLine("* rooms: dev (1), lobby (1)")
      try a.sendLine("in dev")
      try b.sendLine("in lobby")
      try b.sendLine("/history")
      try b.expectLine("[1] * alice waves")
      try b.expectLine("[2] bob: in lobby")
      try b.expectLine("* end of history (2 messages, last id 2)")
      try b.sendLine("/since 1")
      try b.expectLine("[2] bob: in lobby")
      try b.expectLine { $0.hasPrefix("* end of history") }
      try b.sendLine("/bogus")
      try b.expectLine("! unknown command /bogus (try /help)")
      try b.sendLine("/help")
      try b.expectLine("* commands:")
      try b.sendLine("//not a command")
      try a.sendLine("/join lobby")
      try b.expectLine("* carol has joined")
      try a.sendLine("/quit")
      try a.expectLine("* bye")
      try a.expectClosed()
      try b.expectLine("* carol has left")
    }
  }

  @Test func aBrowserOnTheLinePortGetsHTTPAndNothingIsBroadcast() async throws {
    try await withServer { server in
      let member = try LineClient(server.tcpAddress!)
      try member.sendLine("iam:member")
      try await eventually { server.hub.who(room: "lobby") == ["member"] }
      let browser = try LineClient(server.tcpAddress!)
      try browser.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
      try browser.expectLine("HTTP/1.1 200 OK\r")
      let leaked = member.expectSilence(for: .milliseconds(500))
      #expect(leaked.isEmpty, "HTTP leaked into the room: \(leaked)")
    }
  }
}
