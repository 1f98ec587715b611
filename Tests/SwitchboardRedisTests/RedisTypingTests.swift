import Foundation
import SwitchboardChat
import SwitchboardRedis
import SwitchboardTestSupport
import SwitchboardWire
import Testing

/// Typing across nodes (RedisRoomBroker+Typing.swift): the announcement's decoder, and
/// three `switchboard serve --redis` nodes (on one server and on a three-master cluster) relaying a line member's `/typing` to line members
/// with `/typing on` on every node exactly once, never into the room's history.
@Suite(
  .serialized,
  .enabled(
    ifAvailable: Executables.switchboard != nil && RedisServer.isInstalled,
    "needs the switchboard binary and redis-server"),
  .onTestThreads)
struct RedisTypingTests {
  private func typing(_ text: String) -> (event: TypingEvent, node: String)? {
    RedisRoomBroker.decodeTyping(Array(text.utf8), room: "r")
  }

  @Test func anAnnouncementDecodesToItsEventAndNode() {
    let start = typing("sb1p 3 typing n1 5 0 1 alice1")
    #expect(start?.event == TypingEvent(room: "r", author: "alice", active: true))
    #expect(start?.node == "n1")
    #expect(typing("sb1p 0 typing n2 3 0 1 bob0")?.event.active == false)
    // Presence, disconnect orders and bad lengths are no typing.
    let join = PresenceEvent(kind: .join, author: "bob", room: "r", members: 1, color: "red")
    #expect(RedisRoomBroker.decodeTyping(RedisBrokerPayload.presence(join, node: "n1"), room: "r") == nil)
    #expect(typing("sb1p 3 disconnect n1 3 0 0 bob") == nil)
    #expect(typing("sb1p 3 typing n1 6 0 1 alice1") == nil)
    #expect(typing("sb1p 3 typing n1 5 0 1 alice2") == nil)
    #expect(typing("sb1p 3 typing n1 0 0 1 1") == nil)
    #expect(typing("sb1p 3 typing n1 99999 0 1 a1") == nil)
    #expect(typing("sb1p x typing n1 5 0 1 alice1") == nil)
    #expect(typing("") == nil)
  }

  @Test(arguments: ScaleOutRedis.Kind.allCases)
  func threeNodesRelayTypingExactlyOnceAndNeverIntoHistory(_ kind: ScaleOutRedis.Kind) async throws {
    let redis = try ScaleOutRedis(kind)
    var nodes: [ScaleOutNode] = []
    for _ in 0..<3 { nodes.append(try await ScaleOutNode(redisPorts: redis.ports)) }
    for node in nodes { _ = try node.waitForReadiness(200) }
    let peers = try nodes.indices.map { try RawChatPeer(.tcp, port: nodes[$0].tcpPort, name: "tcp\($0)") }
    let quiet = try RawChatPeer(.tcp, port: nodes[2].tcpPort, name: "quiet")
    for peer in peers.dropFirst() {
      peer.send("/typing on")
      try peer.waitFor("typing notices on") { $0.contains("* typing notices on") }
    }
    // Every node has every member (presence is cluster-wide): the room is open on each.
    for peer in peers + [quiet] {
      try peer.waitFor("every member") { lines in
        peer.send("/who")
        return lines.contains { $0.hasPrefix("* in chaos (4)") }
      }
    }
    peers[0].send("/typing")
    peers[0].send("msg:done")
    for peer in peers.dropFirst() {
      try peer.waitFor("the message after the notice") { $0.contains("tcp0: done") }
      let notices = peer.lines.filter { $0 == "* tcp0 is typing" }
      #expect(notices.count == 1, "\(peer.lines.suffix(10))")
      #expect(peer.lines.firstIndex(of: "* tcp0 is typing")! < peer.lines.firstIndex(of: "tcp0: done")!)
    }
    try quiet.waitFor("the message") { $0.contains("tcp0: done") }
    #expect(!quiet.lines.contains { $0.contains("typing") })
    // A fresh member's history holds the message alone.
    let fresh = try RawChatPeer(.tcp, port: nodes[1].tcpPort, name: "fresh")
    fresh.send("/history 10")
    try fresh.waitFor("the history") { $0.contains { $0.contains("tcp0: done") } }
    #expect(!fresh.lines.contains { $0.contains("typing") })
    for node in nodes { node.kill() }
  }
}
