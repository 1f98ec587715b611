import Foundation
import SwitchboardAuth
import SwitchboardIO
import SwitchboardServer
import SwitchboardTestSupport
import Testing

/// The UDP port's anti-amplification rule (docs/SECURITY.md, "UDP reflection and
/// amplification"): a source address that has not proven it receives there is sent at most
/// three times what it sent, besides the seed's echo; only a proven one is a member.
@Suite(.onTestThreads)
struct UDPAmplificationTests {
  /// A lobby of 50 messages of 1 KB, written by a TCP member (returned, still connected).
  private func fillLobby(_ server: ChatServer) async throws -> LineClient {
    let writer = try LineClient(server.tcpAddress!)
    try writer.join(as: "writer")
    let kilobyte = String(repeating: "x", count: 1000)
    for i in 0..<50 { try writer.sendLine("\(i) \(kilobyte)") }
    try await eventually { server.hub.history(room: "lobby", last: 100).count == 50 }
    return writer
  }

  @Test(arguments: [
    "/join x", "/history 1000", "/help", "/who", "/rooms", "/since 0", "hello there everyone",
  ])
  func aFreshSourceGetsAtMostThreeTimesWhatItSentBesidesTheEcho(probe: String) async throws {
    try await withServer { server in
      let writer = try await fillLobby(server)
      let fresh = try DatagramPeer(server.udpAddress!)
      try fresh.send(probe)
      let echo = try fresh.receive()
      #expect(echo == "Server received: \(probe)\n")  // the seed's echo, byte for byte
      // Room traffic from now on would reach a member.
      try writer.sendLine("after the probe")
      let rest = fresh.drain()
      let bytes = rest.reduce(0) { $0 + $1.utf8.count }
      #expect(bytes <= 3 * probe.utf8.count, "\(bytes) bytes for \(probe.utf8.count): \(rest)")
      #expect(!rest.contains { $0.contains("after the probe") })
    }
  }

  /// What a plain `nc -u` user sees: the echo, then (once they have typed a dozen bytes)
  /// the offer; typing `/ok CODE` makes them a member that hears the room and is heard.
  @Test func aSourceThatSendsTheOfferedCodeBackIsAMember() async throws {
    try await withServer { server in
      let writer = try LineClient(server.tcpAddress!)
      try writer.join(as: "writer")
      let peer = try DatagramPeer(server.udpAddress!)
      try peer.send("hello there\n")
      #expect(try peer.receive() == "Server received: hello there\n")
      let code = try peer.expectOffer()
      try peer.send("/ok \(code)\n")
      #expect(try peer.receive() == "Server received: /ok \(code)\n")
      #expect(try peer.receive() == "* ok, you are in lobby\n")
      try writer.sendLine("welcome")
      try peer.expect { $0 == "writer: welcome\n" }
      try peer.send("now I am in")
      // The first chat line the writer hears: what came before the proof was not published.
      let heard = try writer.expectLine { $0.contains(": ") }
      #expect(heard.hasPrefix("Client ") && heard.hasSuffix(": now I am in"), "\(heard)")
      #expect(server.metrics.udp.proofs.load(ordering: .relaxed) == 1)
      #expect(server.metrics.udp.members.load(ordering: .relaxed) == 1)
      let text = server.metrics.prometheusText(members: 0, rooms: 0)
      #expect(text.contains("switchboard_udp_proofs_total 1\n"))
      #expect(text.contains("switchboard_udp_members 1\n"))
    }
  }

  @Test func aCodeProvesOnlyTheAddressItWasOfferedTo() async throws {
    try await withServer { server in
      let writer = try LineClient(server.tcpAddress!)
      try writer.join(as: "writer")
      let owner = try DatagramPeer(server.udpAddress!)
      try owner.send("/ok" + String(repeating: " ", count: 61))
      let code = try owner.expectOffer()
      let thief = try DatagramPeer(server.udpAddress!)
      try thief.send("/ok \(code)")
      #expect(try thief.receive() == "Server received: /ok \(code)\n")
      // Answered with its own offer, not an acceptance.
      #expect(try thief.expectOffer() != code)
      try writer.sendLine("members only")
      #expect(!thief.drain().contains { $0.contains("members only") || $0.hasPrefix("* ok") })
      #expect(server.metrics.udp.proofsFailed.load(ordering: .relaxed) == 1)
      #expect(server.metrics.udp.proofs.load(ordering: .relaxed) == 0)
      #expect(server.hub.who(room: "lobby") == ["writer"])
    }
  }

  @Test(.enabled(ifAvailable: TokenSupport.isAvailable, "needs a crypto library for tokens (TokenSupport)"))
  func withAuthOnTheRefusalWaitsUntilTheSourceHasSentAThirdOfIt() async throws {
    try await withServer({ $0.tokenVerifier = TestTokens.verifier }) { server in
      let peer = try DatagramPeer(server.udpAddress!)
      try peer.send("hi\n")
      #expect(peer.drain().isEmpty)  // 99 bytes of refusal for 3 sent: withheld
      try peer.send(String(repeating: "a", count: 40))
      #expect(
        try peer.receive()
          == "! authentication required: the UDP port takes no tokens (use tcp://, tls:// or ws:// with one)\n"
      )
      #expect(server.metrics.udp.unprovenAnswersWithheld.load(ordering: .relaxed) == 1)
      #expect(server.hub.counts.members == 0)
    }
  }

  @Test func pastTheMemberCapAProofIsAnsweredTooManyAndCounted() async throws {
    try await withServer({ $0.limits.maxUDPMembers = 1 }) { server in
      let first = try DatagramPeer(server.udpAddress!)
      try first.prove()
      let second = try DatagramPeer(server.udpAddress!)
      try second.send("/ok" + String(repeating: " ", count: 61))
      let code = try second.expectOffer()
      try second.send("/ok \(code)")
      try second.expect { $0 == "! too many UDP members (1); try again later, or use tcp:// or ws://\n" }
      #expect(server.metrics.udp.membersRefused.load(ordering: .relaxed) == 1)
      #expect(
        server.metrics.prometheusText(members: 0, rooms: 0).contains(
          "switchboard_udp_members_refused_total 1\n"))
      // A member leaving makes room: the same code is good again.
      try first.send("/quit")
      try await eventually { server.metrics.udp.members.load(ordering: .relaxed) == 0 }
      try second.send("/ok \(code)")
      try second.expect { $0 == "* ok, you are in lobby\n" }
    }
  }
}
