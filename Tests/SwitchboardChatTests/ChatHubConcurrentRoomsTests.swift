import Dispatch
import SwitchboardChat
import SwitchboardTestSupport
import SwitchboardWire
import Testing

/// Rooms with locks of their own: publishes to two rooms on two shards,
/// from many threads at once, keep each room's broker order and never cross rooms.
@Suite(.onTestThreads)
struct ChatHubConcurrentRoomsTests {
  static let rooms = ["a", "b"]
  static let publishersPerRoom = 4
  static let messagesPerPublisher = 150

  @Test(arguments: BrokerKind.allCases) func twoRoomsOnTwoShardsKeepTheirOwnOrder(_ kind: BrokerKind)
    async throws
  {
    let hub = kind.makeHub()
    let queues = (0..<2).map { DispatchQueue(label: "shard\($0)") }
    let shards = queues.map { hub.makeShard(executor: QueueExecutor(queue: $0)) }
    // Room a lives on shard 0 and room b on shard 1, each with one member on the other
    // shard too, so both rooms also cross threads.
    var placed: [(member: RecordingMember, room: String, shard: Int)] = []
    for (r, room) in Self.rooms.enumerated() {
      for _ in 0..<Self.publishersPerRoom { placed.append((RecordingMember(hub.nextMemberID()), room, r)) }
      placed.append((RecordingMember(hub.nextMemberID()), room, 1 - r))
    }
    for (i, p) in placed.enumerated() {
      nonisolated(unsafe) let m = p.member
      let shard = shards[p.shard]
      queues[p.shard].sync(execute: { () -> Void in
        hub.join(m, shard: shard, name: "m\(i)", room: p.room, announce: false)
      })
    }
    // The first members of each room publish, each from its own thread, all at once.
    let publishers = Self.rooms.flatMap { room in
      placed.filter { $0.room == room }.prefix(Self.publishersPerRoom).map { ($0.member.memberID, room) }
    }
    DispatchQueue.concurrentPerform(iterations: publishers.count) { k in
      let (id, room) = publishers[k]
      for i in 0..<Self.messagesPerPublisher { hub.publish(from: id, text: "\(room):\(id.raw):\(i)") }
    }
    let perRoom = Self.publishersPerRoom * Self.messagesPerPublisher
    for p in placed {
      nonisolated(unsafe) let m = p.member
      let seen = { queues[p.shard].sync(execute: { () -> [ChatMessage] in m.messages }) }
      try await eventually("\(m.memberID) in \(p.room) has every message") { seen().count >= perRoom }
      let messages = seen()
      #expect(messages.count == perRoom, "more than its room's messages")
      #expect(messages.allSatisfy { $0.room == p.room && $0.text.hasPrefix("\(p.room):") }, "cross-talk")
      #expect(messages.map(\.id) == Array(1...UInt64(perRoom)), "not in broker order")
      // Each publisher's messages arrive in the order it sent them.
      var next: [Substring: Int] = [:]
      for message in messages {
        let parts = message.text.split(separator: ":")
        #expect(Int(parts[2]) == next[parts[1], default: 0])
        next[parts[1]] = (Int(parts[2]) ?? 0) + 1
      }
    }
  }
}
