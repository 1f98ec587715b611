import SwitchboardChat
import SwitchboardTestSupport
import Testing

/// A shard's member list (``HubShardRoom``, reached through the hub): whatever the order
/// of joins and leaves, each message reaches every member in the room once and no one
/// who left.
@Suite(.onTestThreads)
struct HubShardRoomTests {
  @Test(arguments: [1, 2, 7, 40])
  func joinsAndLeavesInAnyOrderKeepDeliveryExact(seed: UInt64) throws {
    let hub = BrokerKind.localInline.makeHub()
    let shard = hub.makeShard(executor: InlineExecutor())
    var rng = SeededGenerator(seed: seed)
    var inRoom: [RecordingMember] = []
    var left: [RecordingMember] = []
    var sent = 0
    for step in 0..<120 {
      if inRoom.count < 3 || rng.next() % 3 != 0 {
        let member = RecordingMember(hub.nextMemberID())
        try hub.joinNow(member, shard: shard, name: "m\(step)", room: "r", announce: false)
        inRoom.append(member)
      } else {
        // Leave from anywhere in the list: the first, the last, the middle.
        let index = Int(rng.next() % UInt64(inRoom.count))
        let member = inRoom.remove(at: index)
        hub.leave(member.memberID)
        left.append(member)
      }
      let before = (inRoom + left).map { $0.messages.count }
      _ = try hub.publishNow(from: inRoom[0].memberID, text: "t\(step)")
      sent += 1
      for (member, count) in zip(inRoom + left, before) {
        let expected = inRoom.contains { $0 === member } ? count + 1 : count
        #expect(member.messages.count == expected, "step \(step): \(member.memberID)")
      }
      #expect(inRoom.allSatisfy { $0.messages.last?.text == "t\(step)" })
    }
    #expect(sent == 120)
  }
}
