import Foundation
import SwitchboardIO
import SwitchboardServer
import SwitchboardTestSupport
import Testing

/// The UDP dialect and its bridge to TCP, over real sockets.
@Suite(.onTestThreads)
struct DatagramChatTests {
  @Test func everyDatagramIsEchoedAsTheSeedServerDid() async throws {
    try await withServer { server in
      let peer = try DatagramPeer(server.udpAddress!)
      try peer.send("hello udp")
      #expect(try peer.receive() == "Server received: hello udp\n")
      try peer.send("with newline\n")
      #expect(try peer.receive() == "Server received: with newline\n")
    }
  }

  /// Another server's echo is not answered: two servers whose sockets face each other (a
  /// client's port reused by a new server) would otherwise echo each other's echoes forever.
  @Test func anotherServersEchoIsDroppedNotAnswered() async throws {
    try await withServer { server in
      let peer = try DatagramPeer(server.udpAddress!)
      try peer.send("Server received: hello from another server")
      try peer.send("Server received:no space either")
      try peer.send("ping")
      // The first answer is the ping's: the two echoes got none (dropped and counted).
      #expect(try peer.receive() == "Server received: ping\n")
      try await eventually { server.metrics.udpDropped.load(ordering: .relaxed) == 2 }
    }
  }

  @Test func udpAndTcpMembersShareTheRoomBothWays() async throws {
    try await withServer { server in
      let tcp = try LineClient(server.tcpAddress!)
      try tcp.sendLine("iam:tcpuser")
      try await eventually { server.hub.who(room: "lobby") == ["tcpuser"] }
      let udp = try DatagramPeer(server.udpAddress!)
      try udp.prove()
      try udp.send("iam:udpuser")
      try tcp.expectLine("* udpuser has joined")
      try udp.send("from udp")
      try tcp.expectLine("udpuser: from udp")
      try tcp.sendLine("from tcp")
      try udp.expect { $0 == "tcpuser: from tcp\n" }
      // Two UDP members see each other too.
      let udp2 = try DatagramPeer(server.udpAddress!)
      try udp2.prove()
      try udp2.send("second peer")
      try udp.expect { $0.hasSuffix(": second peer\n") && $0.hasPrefix("Client ") }
    }
  }

  @Test func quietUdpSendersExpireAndLeave() async throws {
    try await withServer({ $0.udpMemberTTL = .milliseconds(300) }) { server in
      let tcp = try LineClient(server.tcpAddress!)
      try tcp.sendLine("iam:watcher")
      try await eventually { server.hub.who(room: "lobby") == ["watcher"] }
      let udp = try DatagramPeer(server.udpAddress!)
      try udp.prove()
      try udp.send("iam:fleeting")
      try tcp.expectLine("* fleeting has joined")
      try tcp.expectLine("* fleeting has left", timeout: .seconds(5))
    }
  }

  @Test func oversizedDatagramsAreDroppedAndCounted() async throws {
    try await withServer({ $0.maxDatagramSize = 1000 }) { server in
      let tcp = try LineClient(server.tcpAddress!)
      try tcp.sendLine("iam:watcher")
      try await eventually { server.hub.who(room: "lobby") == ["watcher"] }
      let udp = try DatagramPeer(server.udpAddress!)
      try udp.send([UInt8](repeating: 0x41, count: 5000))
      try await eventually { server.metrics.udpDropped.load(ordering: .relaxed) == 1 }
      try udp.prove()
      try udp.send("small one")
      try udp.expect { $0 == "Server received: small one\n" }
      try tcp.expectLine { $0.hasSuffix(": small one") }
    }
  }
}
