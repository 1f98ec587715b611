import SwitchboardChat
import SwitchboardTestSupport
import Synchronization
import Testing

/// A member that takes batches whole, recording each batch's size and its messages.
/// (`@unchecked Sendable`: read and written only on the test's thread, which runs the
/// executor's tasks and the answers they call.)
final class BatchRecordingMember: LocalMember, @unchecked Sendable {
  let memberID: MemberID
  var texts: [String] = []
  var batchSizes: [Int] = []
  init(_ id: MemberID) { memberID = id }
  func receive(_ event: ChatEvent, cache: inout EncodingCache) {
    if case .message(let m, _) = event {
      texts.append(m.text)
      batchSizes.append(1)
    }
  }
  func receive(_ batch: inout MessageBatch) {
    batchSizes.append(batch.count)
    for message in batch.messages { texts.append(message.message.text) }
  }
}

/// A room's messages published while its delivery task waits share that task
/// (``MessageBatch``), but never move past another task queued in between: each member
/// still gets exactly the messages published while it was in the room, in order, whether
/// it takes batches or one message at a time.
///
/// Joins here pass no completion: the shard's tasks run only when the test says so (a
/// join's completion would wait for them).
@Suite(.onTestThreads)
struct MessageBatchTests {
  @Test func messagesPublishedWhileTheTaskWaitsShareOneBatch() throws {
    let hub = BrokerKind.localInline.makeHub()
    let executor = ManualExecutor(stamped: true)
    let shard = hub.makeShard(executor: executor)
    let batched = BatchRecordingMember(hub.nextMemberID())
    let single = RecordingMember(hub.nextMemberID())
    hub.join(batched, shard: shard, name: "b", room: "r", announce: false)
    hub.join(single, shard: shard, name: "s", room: "r", announce: false)
    executor.drain()
    for i in 0..<5 { #expect(hub.publish(from: single.memberID, text: "m\(i)")) }
    #expect(executor.pending == 1, "five messages, one delivery task")
    executor.runAll()
    #expect(batched.batchSizes == [5])
    #expect(batched.texts == (0..<5).map { "m\($0)" })
    #expect(single.messages.map(\.text) == (0..<5).map { "m\($0)" })
    #expect(single.messages.map(\.id) == [1, 2, 3, 4, 5])
  }

  /// A hub with a stamped shard and room `r` open, `a` (taking batches) in it.
  private static func roomWithOneMember() -> (ChatHub, ManualExecutor, HubShard, BatchRecordingMember) {
    let hub = BrokerKind.localInline.makeHub()
    let executor = ManualExecutor(stamped: true)
    let shard = hub.makeShard(executor: executor)
    let member = BatchRecordingMember(hub.nextMemberID())
    hub.join(member, shard: shard, name: "a", room: "r", announce: false)
    executor.drain()
    return (hub, executor, shard, member)
  }

  /// A publish that waits for its answer (a client's `ref`) does not end the batch: the
  /// answer runs after the batch that holds its message.
  @Test func answersDoNotEndTheBatchAndComeAfterTheirMessage() throws {
    let (hub, executor, shard, member) = Self.roomWithOneMember()
    let seen = Locked<[String]>([])
    for i in 0..<4 {
      let accepted = hub.publish(from: member.memberID, text: "m\(i)", ref: "r\(i)") { result in
        // What the member had been given when the answer ran.
        let id = (try? result.get().id).map(String.init) ?? "failed"
        seen.withLock { $0.append("ack \(id) after \(member.texts.count)") }
      }
      #expect(accepted)
    }
    executor.runAll()
    #expect(member.batchSizes == [4])
    #expect(seen.value == ["ack 1 after 4", "ack 2 after 4", "ack 3 after 4", "ack 4 after 4"])
  }

  @Test func aTaskQueuedInBetweenEndsTheBatch() throws {
    let (hub, executor, shard, first) = Self.roomWithOneMember()
    #expect(hub.publish(from: first.memberID, text: "1"))
    #expect(hub.publish(from: first.memberID, text: "2"))
    // A join queues its member's addition: later messages must come after it.
    let late = BatchRecordingMember(hub.nextMemberID())
    hub.join(late, shard: shard, name: "l", room: "r", announce: false)
    #expect(hub.publish(from: first.memberID, text: "3"))
    #expect(hub.publish(from: first.memberID, text: "4"))
    hub.leave(first.memberID)
    #expect(hub.publish(from: late.memberID, text: "5"))
    executor.runAll()
    #expect(first.texts == ["1", "2", "3", "4"])
    #expect(late.texts == ["3", "4", "5"])
    // 1 and 2 together; 3 and 4 each behind the join (the batch queued before it cannot
    // take them); 5 on its own, behind the leave.
    #expect(first.batchSizes == [2, 1, 1])
    // Once the old task ran, the next messages batch again.
    #expect(hub.publish(from: late.memberID, text: "6"))
    #expect(hub.publish(from: late.memberID, text: "7"))
    executor.runAll()
    #expect(late.texts == ["3", "4", "5", "6", "7"])
    #expect(late.batchSizes.suffix(1) == [2])
  }

  /// A random script over two rooms and two shards: joins, moves, leaves and publishes,
  /// with the shards' tasks run at random moments. Each member must get exactly the
  /// messages of its room published while it was in it, in publish order — and exactly
  /// what the same script gives with a task per message (an executor without a stamp).
  @Test(arguments: [3, 11, 29, 64])
  func randomScriptsDeliverExactlyWhatAPerMessageTaskWould(seed: UInt64) throws {
    let batched = runScript(seed: seed, stamped: true)
    let unbatched = runScript(seed: seed, stamped: false)
    #expect(batched.received == batched.expected)
    #expect(unbatched.received == unbatched.expected)
    #expect(batched.received == unbatched.received)
    #expect(batched.batches > 0, "some messages shared a task")
    #expect(unbatched.batches == 0)
  }

  private func runScript(seed: UInt64, stamped: Bool) -> (received: [[String]], expected: [[String]], batches: Int) {
    let hub = BrokerKind.localInline.makeHub()
    let executors = [ManualExecutor(stamped: stamped), ManualExecutor(stamped: stamped)]
    let shards = executors.map { hub.makeShard(executor: $0) }
    var rng = SeededGenerator(seed: seed)
    let rooms = ["r0", "r1"]
    // Both rooms open first (a publish to a room still loading waits for the load, and is
    // sequenced then, which this model does not follow).
    for (i, room) in rooms.enumerated() {
      hub.join(RecordingMember(hub.nextMemberID()), shard: shards[i], name: "anchor\(i)", room: room, announce: false)
    }
    for executor in executors { executor.drain() }
    // Each member: its object, its shard (a member stays on its shard, as a session stays
    // on its loop), where it is now, and what it must have got.
    var members: [(member: any LocalMember, shard: HubShard, room: String?, expected: [String])] = []
    for step in 0..<400 {
      let roll = rng.next() % 10
      if members.count < 4 || roll == 0 {
        let id = hub.nextMemberID()
        let member: any LocalMember = rng.next() % 2 == 0 ? BatchRecordingMember(id) : RecordingMember(id)
        let room = rooms[Int(rng.next() % 2)]
        let shard = shards[Int(rng.next() % 2)]
        hub.join(member, shard: shard, name: "m\(step)", room: room, announce: false)
        members.append((member, shard, room, []))
      } else if roll == 1 {
        let i = Int(rng.next() % UInt64(members.count))
        guard let room = members[i].room else { continue }
        let other = room == "r0" ? "r1" : "r0"
        hub.join(members[i].member, shard: members[i].shard, name: "x", room: other, announce: false)
        members[i].room = other
      } else if roll == 2 {
        let i = Int(rng.next() % UInt64(members.count))
        hub.leave(members[i].member.memberID)
        members[i].room = nil
      } else if roll < 5 {
        executors[Int(rng.next() % 2)].runAll()
      } else {
        let inRoom = members.indices.filter { members[$0].room != nil }
        guard let sender = inRoom.randomElement(using: &rng) else { continue }
        let room = members[sender].room!
        let text = "\(room):\(step)"
        #expect(hub.publish(from: members[sender].member.memberID, text: text))
        for i in members.indices where members[i].room == room { members[i].expected.append(text) }
      }
    }
    for _ in 0..<10 { for executor in executors { executor.drain() } }
    var batches = 0
    var received: [[String]] = []
    for entry in members {
      if let m = entry.member as? BatchRecordingMember {
        received.append(m.texts)
        batches += m.batchSizes.filter { $0 > 1 }.count
      } else {
        received.append((entry.member as! RecordingMember).messages.map(\.text))
      }
    }
    return (received, members.map(\.expected), batches)
  }
}
