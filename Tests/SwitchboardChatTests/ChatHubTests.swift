import Dispatch
import SwitchboardChat
import SwitchboardTestSupport
import Synchronization
import Testing

/// The hub's contract, run against each broker in ``BrokerKind``.
@Suite(.onTestThreads)
struct ChatHubTests {
  @Test(arguments: BrokerKind.allCases) func idsArePerRoomAndGapless(_ kind: BrokerKind) throws {
    let hub = kind.makeHub(clock: { 1000 })
    let shard = hub.makeShard(executor: InlineExecutor())
    let a = RecordingMember(hub.nextMemberID())
    let b = RecordingMember(hub.nextMemberID())
    try hub.joinNow(a, shard: shard, name: "a", room: "lobby", announce: true)
    try hub.joinNow(b, shard: shard, name: "b", room: "dev", announce: true)
    #expect(try hub.publishNow(from: a.memberID, text: "1") == 1)
    #expect(try hub.publishNow(from: a.memberID, text: "2") == 2)
    #expect(try hub.publishNow(from: b.memberID, text: "x") == 1)
    #expect(a.messages.map(\.text) == ["1", "2"])
    #expect(b.messages.map(\.text) == ["x"])
    #expect(a.messages.first?.time == 1000)
  }

  @Test(arguments: BrokerKind.allCases) func joinWithSinceReplaysExactlyWhatFollows(_ kind: BrokerKind) throws
  {
    var config = HubConfiguration()
    config.historyLimit = 5
    let hub = kind.makeHub(configuration: config)
    let shard = hub.makeShard(executor: InlineExecutor())
    let a = RecordingMember(hub.nextMemberID())
    try hub.joinNow(a, shard: shard, name: "a", room: "r", announce: true)
    for i in 1...8 { hub.publish(from: a.memberID, text: "\(i)") }
    let b = RecordingMember(hub.nextMemberID())
    let partial = try hub.joinNow(b, shard: shard, name: "b", room: "r", announce: true, since: 6)
    #expect(partial.history.map(\.id) == [7, 8])
    #expect(partial.complete)
    let c = RecordingMember(hub.nextMemberID())
    let gap = try hub.joinNow(c, shard: shard, name: "c", room: "r", announce: true, since: 1)
    #expect(gap.history.map(\.id) == [4, 5, 6, 7, 8])
    #expect(!gap.complete)
    hub.publish(from: a.memberID, text: "9")
    #expect(b.messages.map(\.id) == [9])
  }

  @Test(arguments: BrokerKind.allCases) func rejoiningTheSameRoomOnlyReplays(_ kind: BrokerKind) throws {
    let hub = kind.makeHub()
    let shard = hub.makeShard(executor: InlineExecutor())
    let watcher = RecordingMember(hub.nextMemberID())
    try hub.joinNow(watcher, shard: shard, name: "w", room: "r", announce: true)
    let m = RecordingMember(hub.nextMemberID())
    try hub.joinNow(m, shard: shard, name: "m", room: "r", announce: true)
    for i in 1...3 { hub.publish(from: watcher.memberID, text: "\(i)") }
    let before = watcher.events.count
    let resumed = try hub.joinNow(m, shard: shard, name: "m", room: "r", announce: true, since: 1)
    #expect(resumed.history.map(\.id) == [2, 3])
    #expect(resumed.complete)
    #expect(watcher.events.count == before, "a resume must not look like a leave and a join")
    #expect(hub.who(room: "r") == ["m", "w"])
    hub.publish(from: watcher.memberID, text: "4")
    #expect(m.messages.map(\.id) == [1, 2, 3, 4])
  }

  @Test(arguments: BrokerKind.allCases) func presenceFollowsJoinRenameAndLeave(_ kind: BrokerKind) throws {
    let hub = kind.makeHub()
    let shard = hub.makeShard(executor: InlineExecutor())
    let watcher = RecordingMember(hub.nextMemberID())
    try hub.joinNow(watcher, shard: shard, name: "w", room: "lobby", announce: true)
    let quiet = RecordingMember(hub.nextMemberID())
    try hub.joinNow(quiet, shard: shard, name: "Client 2", room: "lobby", announce: false)
    #expect(hub.who(room: "lobby") == ["w"])
    hub.rename(quiet.memberID, to: "q")
    hub.announce(quiet.memberID)
    hub.rename(quiet.memberID, to: "q2")
    hub.leave(quiet.memberID)
    #expect(presenceLog(watcher) == ["join w", "join q", "rename q->q2", "leave q2"])
  }

  @Test(arguments: BrokerKind.allCases) func concurrentPublishersAllSeeOneOrder(_ kind: BrokerKind)
    async throws
  {
    let hub = kind.makeHub()
    let queues = (0..<3).map { DispatchQueue(label: "shard\($0)") }
    let shards = queues.map { hub.makeShard(executor: QueueExecutor(queue: $0)) }
    let members = (0..<6).map { _ in RecordingMember(hub.nextMemberID()) }
    for (i, m) in members.enumerated() {
      nonisolated(unsafe) let m = m
      let shard = shards[i % 3]
      // Not waited for: with a queued loader the room is still loading while the
      // publishers start, and their messages queue behind the joins.
      queues[i % 3].sync(execute: { () -> Void in
        hub.join(m, shard: shard, name: "m\(i)", room: "r", announce: false)
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
    for (i, m) in members.enumerated() {
      nonisolated(unsafe) let m = m
      let ids = { queues[i % 3].sync(execute: { () -> [UInt64] in m.messages.map { $0.id } }) }
      try await eventually("m\(i) has every message") { ids().count >= 1200 }
      #expect(ids() == Array(1...1200))
    }
  }
}

/// The presence events `member` saw, as `join NAME`, `leave NAME`, `rename OLD->NEW`.
func presenceLog(_ member: RecordingMember) -> [String] {
  member.events.compactMap { event -> String? in
    guard case .presence(let p, _) = event else { return nil }
    switch p.kind {
    case .join: return "join \(p.author)"
    case .leave: return "leave \(p.author)"
    case .rename(let old): return "rename \(old)->\(p.author)"
    }
  }
}

/// What the hub tells the JSON writer about a message's strings
/// (``ChatMessage/stringsNeedNoJSONEscape``): set for a plain name in a plain room, not for
/// a name with a byte to escape, and following a rename; and the text's flag only when the
/// publisher's reader said so.
@Suite(.onTestThreads)
struct ChatHubJSONEscapeFlagTests {
  @Test(arguments: BrokerKind.allCases) func theStringsFlagFollowsTheNameAndRoom(_ kind: BrokerKind) throws {
    let hub = kind.makeHub()
    let shard = hub.makeShard(executor: InlineExecutor())
    let plain = RecordingMember(hub.nextMemberID())
    let quoted = RecordingMember(hub.nextMemberID())
    try hub.joinNow(plain, shard: shard, name: "ann", room: "lobby", announce: true)
    try hub.joinNow(quoted, shard: shard, name: #"Zoë "z""#, room: "lobby", announce: true)
    _ = try hub.publishNow(from: plain.memberID, text: "one")
    _ = try hub.publishNow(from: quoted.memberID, text: "two")
    #expect(plain.messages.map(\.stringsNeedNoJSONEscape) == [true, false])
    #expect(plain.messages.allSatisfy { !$0.textNeedsNoJSONEscape }, "a String's text is checked when written")
    Array("three".utf8).withUnsafeBytes {
      _ = hub.publish(from: plain.memberID, validatedUTF8: $0, textNeedsNoJSONEscape: true)
    }
    _ = hub.rename(plain.memberID, to: "back\\slash")
    _ = try hub.publishNow(from: plain.memberID, text: "four")
    let last = plain.messages.suffix(2)
    #expect(last.map(\.text) == ["three", "four"])
    #expect(last.map(\.textNeedsNoJSONEscape) == [true, false])
    #expect(last.map(\.stringsNeedNoJSONEscape) == [true, false])
  }
}
