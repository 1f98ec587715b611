import Dispatch
import Synchronization
import SwitchboardChat
import SwitchboardTestSupport
import Testing

/// Runs shard tasks inline on the caller (the hub's ordering guarantees still apply).
struct InlineExecutor: ShardExecutor {
  func execute(_ task: @escaping @Sendable () -> Void) { task() }
}

final class RecordingMember: LocalMember {
  let memberID: MemberID
  var events: [ChatEvent] = []
  init(_ id: MemberID) { memberID = id }
  func receive(_ event: ChatEvent, cache: inout EncodingCache) { events.append(event) }
  var messages: [ChatMessage] {
    events.compactMap { if case .message(let m, _) = $0 { return m } else { return nil } }
  }
}

@Suite(.onTestThreads)
struct ChatHubTests {
  @Test func idsArePerRoomAndGapless() {
    let hub = ChatHub(clock: { 1000 })
    let shard = hub.makeShard(executor: InlineExecutor())
    let a = RecordingMember(hub.nextMemberID())
    let b = RecordingMember(hub.nextMemberID())
    hub.join(a, shard: shard, name: "a", room: "lobby", announce: true)
    hub.join(b, shard: shard, name: "b", room: "dev", announce: true)
    #expect(hub.publish(from: a.memberID, text: "1")?.id == 1)
    #expect(hub.publish(from: a.memberID, text: "2")?.id == 2)
    #expect(hub.publish(from: b.memberID, text: "x")?.id == 1)
    #expect(a.messages.map(\.text) == ["1", "2"])
    #expect(b.messages.map(\.text) == ["x"])
    #expect(a.messages.first?.time == 1000)
  }

  @Test func joinWithSinceReplaysExactlyWhatFollows() {
    var config = HubConfiguration()
    config.historyLimit = 5
    let hub = ChatHub(configuration: config)
    let shard = hub.makeShard(executor: InlineExecutor())
    let a = RecordingMember(hub.nextMemberID())
    hub.join(a, shard: shard, name: "a", room: "r", announce: true)
    for i in 1...8 { hub.publish(from: a.memberID, text: "\(i)") }
    let b = RecordingMember(hub.nextMemberID())
    let partial = hub.join(b, shard: shard, name: "b", room: "r", announce: true, since: 6)
    #expect(partial.history.map(\.id) == [7, 8])
    #expect(partial.complete)
    let c = RecordingMember(hub.nextMemberID())
    let gap = hub.join(c, shard: shard, name: "c", room: "r", announce: true, since: 1)
    #expect(gap.history.map(\.id) == [4, 5, 6, 7, 8])
    #expect(!gap.complete)
    hub.publish(from: a.memberID, text: "9")
    #expect(b.messages.map(\.id) == [9])
  }

  @Test func rejoiningTheSameRoomOnlyReplays() {
    let hub = ChatHub()
    let shard = hub.makeShard(executor: InlineExecutor())
    let watcher = RecordingMember(hub.nextMemberID())
    hub.join(watcher, shard: shard, name: "w", room: "r", announce: true)
    let m = RecordingMember(hub.nextMemberID())
    hub.join(m, shard: shard, name: "m", room: "r", announce: true)
    for i in 1...3 { hub.publish(from: watcher.memberID, text: "\(i)") }
    let before = watcher.events.count
    let resumed = hub.join(m, shard: shard, name: "m", room: "r", announce: true, since: 1)
    #expect(resumed.history.map(\.id) == [2, 3])
    #expect(resumed.complete)
    #expect(watcher.events.count == before, "a resume must not look like a leave and a join")
    #expect(hub.who(room: "r") == ["m", "w"])
    hub.publish(from: watcher.memberID, text: "4")
    #expect(m.messages.map(\.id) == [1, 2, 3, 4])
  }

  @Test func presenceFollowsJoinRenameAndLeave() {
    let hub = ChatHub()
    let shard = hub.makeShard(executor: InlineExecutor())
    let watcher = RecordingMember(hub.nextMemberID())
    hub.join(watcher, shard: shard, name: "w", room: "lobby", announce: true)
    let quiet = RecordingMember(hub.nextMemberID())
    hub.join(quiet, shard: shard, name: "Client 2", room: "lobby", announce: false)
    #expect(hub.who(room: "lobby") == ["w"])
    hub.rename(quiet.memberID, to: "q")
    hub.announce(quiet.memberID)
    hub.rename(quiet.memberID, to: "q2")
    hub.leave(quiet.memberID)
    let kinds = watcher.events.compactMap { event -> String? in
      guard case .presence(let p, _) = event else { return nil }
      switch p.kind {
      case .join: return "join \(p.author)"
      case .leave: return "leave \(p.author)"
      case .rename(let old): return "rename \(old)->\(p.author)"
      }
    }
    #expect(kinds == ["join w", "join q", "rename q->q2", "leave q2"])
  }

  @Test func concurrentPublishersAllSeeOneOrder() async {
    let hub = ChatHub()
    let queues = (0..<3).map { DispatchQueue(label: "shard\($0)") }
    struct QueueExecutor: ShardExecutor {
      let queue: DispatchQueue
      func execute(_ task: @escaping @Sendable () -> Void) { queue.async(execute: task) }
    }
    let shards = queues.map { hub.makeShard(executor: QueueExecutor(queue: $0)) }
    let members = (0..<6).map { _ in RecordingMember(hub.nextMemberID()) }
    for (i, m) in members.enumerated() {
      nonisolated(unsafe) let m = m
      let shard = shards[i % 3]
      queues[i % 3].sync(execute: { () -> Void in
        _ = hub.join(m, shard: shard, name: "m\(i)", room: "r", announce: false)
      })
    }
    await withTaskGroup(of: Void.self) { group in
      for m in members {
        let id = m.memberID
        group.addTask {
          for i in 0..<200 { hub.publish(from: id, text: "\(i)") }
        }
      }
    }
    for q in queues { q.sync(execute: { () -> Void in }) }
    for (i, m) in members.enumerated() {
      nonisolated(unsafe) let m = m
      let ids = queues[i % 3].sync(execute: { () -> [UInt64] in m.messages.map { $0.id } })
      #expect(ids == Array(1...1200))
    }
  }
}
