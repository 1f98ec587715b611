import Dispatch
import SwitchboardHTTP
import Synchronization

/// The rooms and members of this node, in front of a ``RoomBroker`` that owns each room's
/// order and history.
///
/// Each event loop owns a ``HubShard`` with the members living on it. A publish takes the
/// hub's lock to read the sender's room and name and hands a ``MessageDraft`` to the
/// broker, which assigns the id and delivers the message back through
/// ``deliver(_:epoch:origin:)``: that takes the lock once, appends to the room's ring and
/// queues one delivery task per shard that has members in the room — so a broadcast
/// crosses threads once per loop, not once per member, and every member of a room sees
/// the broker's order. Membership changes are queued through the same executors under
/// the same lock, which is what makes "history up to K, then live from K+1" exact.
///
/// **Loading.** The first join of a room asks the broker for its state
/// (``RoomBroker/openRoom(_:recent:on:completion:)``) and never waits for it on the
/// caller's thread. Until the answer arrives the room is *loading*: joins, publishes and
/// deliveries to it queue in arrival order (publishes at most
/// ``HubConfiguration/maxQueuedWhileLoading``), and the join's completion runs later, on
/// the member's shard, followed by the queued messages. The hub never calls the broker
/// while it holds its lock.
public final class ChatHub: RoomBrokerSink {
  /// Where a member stands with its room.
  enum Placement: Equatable {
    /// Waiting for the room to load (the pending join's serial).
    case joining(UInt64)
    /// A member of the room: in its member set and on its shard.
    case inRoom
  }
  struct MemberInfo {
    /// The name in the member's room: `requestedName`, or that with ` (N)` when it is taken.
    var name: String
    /// The name the member asked for (see ``HubConfiguration/uniqueNames``).
    var requestedName: String
    var room: String
    var color: String
    var announced: Bool
    var shard: Int
    var placement: Placement
  }
  struct State {
    var rooms: [String: HubRoom] = [:]
    var members: [MemberID: MemberInfo] = [:]
    /// How many members of `members` use each name, per room (waiting joins included):
    /// what makes a unique name a dictionary lookup, not a scan of the room.
    var namesInUse: [String: [String: Int]] = [:]
    var shards: [HubShard] = []
    var nextMember: UInt64 = 1
    var nextJoin: UInt64 = 1
    var colorCursor = 0
    /// Numbers the idle checks (``HubRoom/idleMark``).
    var nextIdleMark: UInt64 = 0
    /// Presence events for the broker, handed over once the lock is released.
    var presenceOutbox: [(PresenceEvent, MemberID)] = []
  }

  /// The configuration in force.
  public let configuration: HubConfiguration
  /// Where rooms' ids, history and (in a cluster) remote members come from.
  public let broker: any RoomBroker
  private let state = Mutex(State())
  /// Held while the hub tells the broker a room opens or goes idle, so the broker hears
  /// of one room's closing and reopening in the order the hub decided them.
  private let roomOrder = Mutex(())
  private let clock: @Sendable () -> Int64
  /// Told about every message the broker failed to keep (the server logs it); delivery
  /// to members is not affected.
  private let onPublishFailure: (@Sendable (_ room: String, _ id: UInt64?, _ error: BrokerError) -> Void)?

  /// The colours handed to members in turn (the seed chat server's palette).
  public static let palette = ["red", "green", "blue", "magenta", "purple", "plum", "orange"]

  /// Makes a hub and attaches it to `broker`.
  /// - Parameters:
  ///   - broker: default: a ``LocalRoomBroker`` keeping `historyLimit` messages per room in memory.
  ///   - clock: milliseconds since the epoch (injected for tests).
  ///   - onPublishFailure: told (on any thread) about every message the broker did not keep.
  public init(
    configuration: HubConfiguration = HubConfiguration(), broker: (any RoomBroker)? = nil,
    clock: (@Sendable () -> Int64)? = nil,
    onPublishFailure: (@Sendable (_ room: String, _ id: UInt64?, _ error: BrokerError) -> Void)? = nil
  ) {
    self.configuration = configuration
    self.onPublishFailure = onPublishFailure
    self.broker = broker ?? LocalRoomBroker(retention: configuration.historyLimit)
    self.clock = clock ?? { ChatClock.milliseconds() }
    self.broker.attach(self)
  }

  /// Adds a shard whose members are reached through `executor`.
  public func makeShard(executor: ShardExecutor) -> HubShard {
    state.withLock { state in
      let shard = HubShard(index: state.shards.count, executor: executor)
      state.shards.append(shard)
      return shard
    }
  }

  /// A new member identity; its number is the `N` of the default name `Client N`.
  public func nextMemberID() -> MemberID {
    state.withLock { state in
      defer { state.nextMember += 1 }
      return MemberID(raw: state.nextMember)
    }
  }

  /// Normalises a requested name: trimmed, control characters removed, at most
  /// `maxNameLength` characters. `nil` when nothing visible is left (format characters
  /// such as U+200B alone are no name; docs/BAD-INPUT.md).
  public func sanitizeName(_ raw: String) -> String? {
    let cleaned = String(
      String.UnicodeScalarView(
        raw.unicodeScalars.filter { !$0.properties.isWhitespace || $0 == " " }
          .filter { $0.value >= 0x20 && $0.value != 0x7F }))
    let trimmed = cleaned.trimmingSpacesAndTabs()
    let visible = trimmed.unicodeScalars.contains { $0 != " " && $0.properties.generalCategory != .format }
    guard visible else { return nil }
    return String(trimmed.prefix(configuration.maxNameLength))
  }

  // MARK: Membership

  /// Puts `member` (living on `shard`) into `room` as `name`. `epoch`, when given, is
  /// the room epoch the client's `since` refers to. When `announce` is true the
  /// room sees a join; otherwise the member receives messages silently until
  /// ``announce(_:)``. Call on the shard's thread.
  ///
  /// `completion` runs on the shard's thread: at once, before `join` returns, when the
  /// room is open here; when it is still loading, later through the shard's executor,
  /// before any live message of the room reaches the member. A later join of the same
  /// member supersedes one still waiting (whose completion then never runs), and so does
  /// a ``leave(_:)``.
  /// - Parameter completion: gets the kept messages the member should be shown first:
  ///   all after `since` when given, else the last `historyCount`, plus whether that
  ///   covers everything after `since` (`false` when some fell out of the window).
  public func join(
    _ member: LocalMember, shard: HubShard, name: String, room: String, announce: Bool,
    since: UInt64? = nil, epoch: String? = nil, historyCount: Int = 0,
    completion: ((JoinResult) -> Void)? = nil
  ) {
    let id = member.memberID
    enum Outcome {
      case joined(JoinResult)
      case queued(load: Bool)
    }
    let (outcome, presence) = state.withLock { state -> (Outcome, [(PresenceEvent, MemberID)]) in
      let previous = state.members[id]
      // Joining the room one is already in (a resume) only replays: no leave/join noise.
      let sameRoom = previous?.room == room && previous?.placement == .inRoom
      if let previous, !sameRoom, previous.placement == .inRoom {
        removeLocked(&state, id: id, info: previous, announceLeave: previous.announced)
      }
      let wasAnnounced = previous?.announced == true
      // A join of the room it is already in (or waiting for) keeps its name. Passing the
      // current name (a move to another room) keeps the name asked for, so `alice (2)` is
      // `alice` again in a room where `alice` is free.
      let keep = previous?.room == room
      let requested = previous.map { keep || name == $0.name ? $0.requestedName : name } ?? name
      if let previous { releaseNameLocked(&state, previous) }
      var info = MemberInfo(
        name: keep ? previous!.name : uniqueNameLocked(state, requested, room: room),
        requestedName: requested, room: room, color: previous?.color ?? nextColor(&state),
        announced: wasAnnounced || announce, shard: shard.index, placement: .inRoom)
      useNameLocked(&state, info)
      let load = state.rooms[room] == nil
      if load { state.rooms[room] = HubRoom(capacity: configuration.historyLimit) }
      guard state.rooms[room]!.isOpen else {
        let serial = state.nextJoin
        state.nextJoin += 1
        info.placement = .joining(serial)
        state.members[id] = info
        state.rooms[room]!.enqueue(
          .join(
            PendingJoin(
              member: member, shard: shard, serial: serial, since: since, epoch: epoch,
              historyCount: historyCount,
              completion: completion)))
        return (.queued(load: load), takePresence(&state))
      }
      let result = admitLocked(
        &state, member, shard: shard, id: id, room: room, color: info.color, alreadyIn: sameRoom,
        since: since,
        epoch: epoch, historyCount: historyCount)
      state.members[id] = info
      if sameRoom ? (announce && !wasAnnounced) : info.announced {
        emitPresence(&state, .join, id: id, info: info)
      }
      return (.joined(result), takePresence(&state))
    }
    forward(presence)
    switch outcome {
    case .joined(let result):
      completion?(result)
    case .queued(let load):
      guard load else { return }
      roomOrder.withLock { _ in
        broker.openRoom(room, recent: configuration.historyLimit, on: shard.executor) { [self] result in
          roomOpened(room, result)
        }
      }
    }
  }

  /// Announces a member that joined silently (its name is now known).
  public func announce(_ id: MemberID) {
    let presence = state.withLock { state -> [(PresenceEvent, MemberID)] in
      guard var info = state.members[id], !info.announced else { return [] }
      info.announced = true
      state.members[id] = info
      emitPresence(&state, .join, id: id, info: info)
      return takePresence(&state)
    }
    forward(presence)
  }

  /// Whether the member's join has been announced.
  public func isAnnounced(_ id: MemberID) -> Bool {
    state.withLock { $0.members[id]?.announced ?? false }
  }

  /// Renames a member; announced members' rooms see `* old is now new`. With
  /// ``HubConfiguration/uniqueNames`` a name another member of the room has becomes
  /// `name (2)` (or the next free number).
  /// - Returns: the member's name now (`nil` for an unknown member).
  @discardableResult
  public func rename(_ id: MemberID, to name: String) -> String? {
    let (assigned, presence) = state.withLock { state -> (String?, [(PresenceEvent, MemberID)]) in
      guard var info = state.members[id] else { return (nil, []) }
      releaseNameLocked(&state, info)
      let old = info.name
      info.requestedName = name
      info.name = name == old ? old : uniqueNameLocked(state, name, room: info.room)
      useNameLocked(&state, info)
      state.members[id] = info
      if info.announced, info.name != old { emitPresence(&state, .rename(from: old), id: id, info: info) }
      return (info.name, takePresence(&state))
    }
    forward(presence)
    return assigned
  }

  /// Removes a member for good (its connection closed); the room sees a leave if it saw
  /// the join.
  public func leave(_ id: MemberID) {
    let presence = state.withLock { state -> [(PresenceEvent, MemberID)] in
      guard let info = state.members.removeValue(forKey: id) else { return [] }
      releaseNameLocked(&state, info)
      guard info.placement == .inRoom else { return [] }
      removeLocked(&state, id: id, info: info, announceLeave: info.announced)
      return takePresence(&state)
    }
    forward(presence)
  }

  // MARK: Messages

  /// Publishes a chat message from `id` to its room.
  /// - Parameters:
  ///   - id: the sender.
  ///   - text: the message text.
  ///   - isAction: a `/me` action rather than a plain message.
  ///   - ref: the client's `ref` for the message (its JSON text), if it sent one: the
  ///     broker keeps it as an idempotency key, so a message re-sent with the same ref
  ///     (after a lost `ack`) is kept and delivered once and acknowledged with the first
  ///     id (``MessageDraft/clientKey(ref:subject:name:text:)``).
  ///   - subject: the sender's token `sub` when the server checks tokens: the ref's scope
  ///     (else the name the sender asked for, before it was made unique in the room).
  ///   - completion: runs on the sender's shard once the broker kept the message (the
  ///     server sends the `ack` frame then) or failed to; never before the message itself
  ///     was queued for delivery.
  /// - Returns: `false` when the member is unknown (nothing was sent).
  @discardableResult
  public func publish(
    from id: MemberID, text: String, isAction: Bool = false, ref: String? = nil, subject: String? = nil,
    completion: (@Sendable (Result<PublishReceipt, BrokerError>) -> Void)? = nil
  ) -> Bool {
    let now = clock()
    enum Step {
      case unknown
      // Shards, not their executors: an existential payload makes every copy of the
      // step go through value witnesses.
      case send(MessageDraft, HubShard?)
      case queued
      case busy(HubShard, String)
    }
    let step = state.withLock { state -> Step in
      guard let info = state.members[id], let index = state.rooms.index(forKey: info.room) else {
        return .unknown
      }
      let draft = MessageDraft(
        ChatMessage(
          id: 0, room: info.room, time: now, author: info.name, color: info.color, text: text,
          isAction: isAction),
        origin: id,
        clientKey: ref.map { MessageDraft.clientKey(ref: $0, subject: subject, name: info.requestedName, text: text) })
      let shard = state.shards[info.shard]
      switch state.rooms.values[index].admitPublish(
        limit: configuration.maxQueuedWhileLoading,
        {
          HubRoom.QueuedPublish(
            draft: draft, answer: PendingPublish(executor: shard.executor, completion: completion))
        })
      {
      case .send: return .send(draft, completion == nil ? nil : shard)
      case .queued: return .queued
      case .busy: return .busy(shard, info.room)
      }
    }
    switch step {
    case .unknown:
      return false
    case .send(let draft, let shard):
      broker.publish(draft, on: shard?.executor, completion: completion)
    case .queued:
      break
    case .busy(let shard, let room):
      keepFailed(room: room, id: nil, error: .busy)
      if let completion { shard.executor.execute { completion(.failure(.busy)) } }
    }
    return true
  }

  /// Relays binary data from `id` to its room (not kept in history, this node only).
  public func publishBinary(from id: MemberID, bytes: [UInt8]) {
    state.withLock { state in
      guard let info = state.members[id], info.placement == .inRoom, let room = state.rooms[info.room] else {
        return
      }
      fanOut(state, room: room, name: info.room, .binary(room: info.room, bytes: bytes, origin: id))
    }
  }

  /// Tells every member on every shard that the server is going away.
  public func broadcastShutdown(reason: String) {
    state.withLock { state in
      for shard in state.shards {
        shard.executor.execute { shard.deliverToAll(.shutdown(reason: reason)) }
      }
    }
  }

  // MARK: RoomBrokerSink

  /// Delivers a message the broker sequenced to this node's members of its room (see
  /// ``RoomBrokerSink``). A message of a room still loading waits for the snapshot; one
  /// whose id was already delivered is dropped; a new epoch starts the room's ring afresh.
  public func deliver(_ message: ChatMessage, epoch: String, origin: MemberID?) {
    state.withLock { state in
      guard let index = state.rooms.index(forKey: message.room) else { return }
      deliverLocked(&state, index: index, message, epoch: epoch, origin: origin)
    }
  }

  /// Shows another node's join, leave or rename to this node's members of the room (not
  /// kept in history); ignored while the room is not open here.
  public func remotePresence(_ event: PresenceEvent) {
    state.withLock { state in
      guard let room = state.rooms[event.room], room.isOpen else { return }
      fanOut(state, room: room, name: event.room, .presence(event, origin: nil))
    }
  }

  /// Passes the failure to `onPublishFailure`.
  public func keepFailed(room: String, id: UInt64?, error: BrokerError) {
    onPublishFailure?(room, id, error)
  }

  // MARK: Queries

  /// The member's current name, room and colour.
  public func member(_ id: MemberID) -> (name: String, room: String, color: String)? {
    state.withLock { state in state.members[id].map { ($0.name, $0.room, $0.color) } }
  }

  /// Names of the announced members of `room` on this node (also those whose join waits
  /// for the room to load), sorted.
  public func who(room: String) -> [String] {
    state.withLock { state in
      state.members.values.filter { $0.room == room && $0.announced }.map(\.name).sorted()
    }
  }

  /// Names of the announced members of `room` on every node (the broker adds the
  /// others'), sorted; `completion` runs on `shard`'s thread. When the broker cannot
  /// answer, this node's members.
  public func who(room: String, shard: HubShard, completion: @escaping ([String]) -> Void) {
    let local = who(room: room)
    let answer = ShardBound(completion)
    broker.remoteMembers(room: room, on: shard.executor) { result in
      let remote = (try? result.get()) ?? []
      answer.value(remote.isEmpty ? local : (local + remote).sorted())
    }
  }

  /// Rooms with members on this node, and how many, sorted by name.
  public func rooms() -> [(name: String, members: Int)] {
    state.withLock { state in
      state.rooms.filter { !$0.value.members.isEmpty }.map { ($0.key, $0.value.members.count) }
        .sorted { $0.0 < $1.0 }
    }
  }

  /// The last `count` messages of `room` in this node's ring.
  public func history(room: String, last count: Int) -> [ChatMessage] {
    state.withLock { $0.rooms[room]?.history.last(count) ?? [] }
  }

  /// The messages of `room` in this node's ring with an id above `id`.
  public func history(room: String, after id: UInt64) -> [ChatMessage] {
    state.withLock { $0.rooms[room]?.history.after(id) ?? [] }
  }

  /// The kept messages of `room` with an id above `id` (at most `historyLimit`):
  /// from the ring when it reaches back far enough, else from the broker. `completion`
  /// runs on `shard`'s thread, at once when the ring answers.
  public func history(
    room: String, after id: UInt64, shard: HubShard,
    completion: @escaping (Result<[ChatMessage], BrokerError>) -> Void
  ) {
    let ring = state.withLock { state -> [ChatMessage]? in
      guard let r = state.rooms[room], r.isOpen else { return nil }
      let kept = r.history.after(id)
      // The ring covers `id` when it holds the next message (or everything is newer
      // than `id`), or when it has never dropped one (it holds the whole room).
      if kept.first.map({ $0.id <= id + 1 }) ?? true || r.history.count < r.history.capacity { return kept }
      return nil
    }
    if let ring { return completion(.success(ring)) }
    let answer = ShardBound(completion)
    broker.history(room: room, after: id, limit: configuration.historyLimit, on: shard.executor) {
      answer.value($0)
    }
  }

  /// The epoch of `room`'s history, `nil` while it is not open on this node.
  public func epoch(room: String) -> String? {
    state.withLock { state in state.rooms[room].flatMap { $0.isOpen ? $0.epoch : nil } }
  }

  /// Counts for metrics: members and rooms.
  public var counts: (members: Int, rooms: Int) {
    state.withLock { state in (state.members.count, state.rooms.values.filter { !$0.members.isEmpty }.count) }
  }

  // MARK: Loading

  /// The broker answered `openRoom`: admit the queued joins, apply the queued deliveries,
  /// then hand the queued publishes to the broker in order (see ``HubRoom/Phase``).
  private func roomOpened(_ room: String, _ result: Result<RoomSnapshot, BrokerError>) {
    // A room the broker cannot open carries on live with a new epoch, so clients see
    // `recovered: false` instead of a silent gap.
    let snapshot =
      (try? result.get()) ?? RoomSnapshot(lastID: 0, epoch: InMemoryHistoryStore.newEpoch(), recent: [])
    var (publishes, presence) = state.withLock {
      state -> ([HubRoom.QueuedPublish], [(PresenceEvent, MemberID)]) in
      guard let index = state.rooms.index(forKey: room),
        case .loading(let queue) = state.rooms.values[index].phase
      else { return ([], []) }
      // Straight to ready when no publish waited (the usual case); else draining, so
      // publishes arriving meanwhile queue behind the waiting ones.
      let waiting = queue.contains { if case .publish = $0 { return true } else { return false } }
      state.rooms.values[index].phase = waiting ? .draining([]) : .ready
      state.rooms.values[index].lastID = snapshot.lastID
      state.rooms.values[index].epoch = snapshot.epoch
      for m in snapshot.recent { state.rooms.values[index].history.append(m) }
      var publishes: [HubRoom.QueuedPublish] = []
      for operation in queue {
        switch operation {
        case .join(let pending): admitQueuedLocked(&state, pending, room: room)
        case .publish(let publish): publishes.append(publish)
        case .delivery(let m, let epoch, let origin):
          deliverLocked(&state, index: state.rooms.index(forKey: room)!, m, epoch: epoch, origin: origin)
        }
      }
      return (publishes, takePresence(&state))
    }
    forward(presence)
    // Hand the queue over outside the lock; what was published meanwhile queued behind
    // it and goes next, until nothing is left and the room is ready.
    while !publishes.isEmpty {
      for p in publishes {
        broker.publish(
          p.draft, on: p.answer.completion == nil ? nil : p.answer.executor, completion: p.answer.completion)
      }
      let sent = publishes.count
      publishes = state.withLock { state -> [HubRoom.QueuedPublish] in
        guard let index = state.rooms.index(forKey: room),
          case .draining(let more) = state.rooms.values[index].phase
        else { return [] }
        state.rooms.values[index].queuedPublishes -= sent
        state.rooms.values[index].phase = more.isEmpty ? .ready : .draining([])
        return more
      }
    }
  }

  /// Admits a join that waited for the room, if the member still wants it.
  private func admitQueuedLocked(_ state: inout State, _ pending: PendingJoin, room: String) {
    let id = pending.member.memberID
    guard var info = state.members[id], info.placement == .joining(pending.serial) else { return }
    let result = admitLocked(
      &state, pending.member, shard: pending.shard, id: id, room: room, color: info.color, alreadyIn: false,
      since: pending.since, epoch: pending.epoch, historyCount: pending.historyCount)
    info.placement = .inRoom
    state.members[id] = info
    if info.announced { emitPresence(&state, .join, id: id, info: info) }
    if let completion = pending.completion {
      let answer = ShardBound(completion)
      pending.shard.executor.execute { answer.value(result) }
    }
  }

  // MARK: Internals (lock held)

  /// Makes `member` a member of the open `room` (unless `alreadyIn`) and computes its replay.
  private func admitLocked(
    _ state: inout State, _ member: LocalMember, shard: HubShard, id: MemberID, room: String, color: String,
    alreadyIn: Bool, since: UInt64?, epoch: String?, historyCount: Int
  ) -> JoinResult {
    if !alreadyIn {
      // In place, so the room's member set and history are not copied per join.
      state.rooms[room]!.members.insert(id)
      state.rooms[room]!.idleMark = nil
      state.rooms[room]!.shardCounts[shard.index, default: 0] += 1
      let member = ShardBound(member)
      shard.executor.execute { shard.add(member.value, room: room) }
    }
    let r = state.rooms[room]!
    let replay: [ChatMessage]
    var complete = true
    if let epoch, epoch != r.epoch {
      // The client's ids belong to another incarnation of this room: everything kept
      // is new to it, and it must know something may be missing.
      replay = r.history.after(0)
      complete = false
    } else if let since {
      replay = r.history.after(since)
      // Complete when nothing between `since` and the first replayed id fell out of
      // the window, and `since` is not from the future (another epoch).
      if since + 1 < (replay.first?.id ?? r.lastID + 1) || since > r.lastID { complete = false }
    } else {
      replay = r.history.last(historyCount)
    }
    return JoinResult(
      room: room, color: color, history: replay, lastID: r.lastID, epoch: r.epoch,
      complete: complete, members: r.members.count)
  }

  private func deliverLocked(
    _ state: inout State, index: Dictionary<String, HubRoom>.Index, _ message: ChatMessage, epoch: String,
    origin: MemberID?
  ) {
    // In place: copying the room out and back would copy its whole history ring on every
    // message (it was the top of the profile).
    let step = state.rooms.values[index].receive(
      message, epoch: epoch, origin: origin, capacity: configuration.historyLimit)
    guard case .fanOut(let shards, let newEpoch) = step else { return }
    if newEpoch { fanOut(state, shards: shards, name: message.room, .epochChanged(room: message.room, epoch: epoch)) }
    fanOut(state, shards: shards, name: message.room, .message(message, origin: origin))
  }

  /// `requested`, or `requested (N)` with the smallest N from 2 that no member of `room`
  /// uses (cut so that it stays within `maxNameLength`). The member itself must not be
  /// counted in `namesInUse` (``releaseNameLocked(_:_:)`` first).
  private func uniqueNameLocked(_ state: State, _ requested: String, room: String) -> String {
    guard configuration.uniqueNames, let taken = state.namesInUse[room], taken[requested] != nil else {
      return requested
    }
    var n = 2
    while true {
      let suffix = " (\(n))"
      let candidate = String(requested.prefix(max(1, configuration.maxNameLength - suffix.count))) + suffix
      if taken[candidate] == nil { return candidate }
      n += 1
    }
  }

  private func useNameLocked(_ state: inout State, _ info: MemberInfo) {
    state.namesInUse[info.room, default: [:]][info.name, default: 0] += 1
  }

  private func releaseNameLocked(_ state: inout State, _ info: MemberInfo) {
    guard let count = state.namesInUse[info.room]?[info.name] else { return }
    if count > 1 {
      state.namesInUse[info.room]![info.name] = count - 1
    } else {
      state.namesInUse[info.room]![info.name] = nil
      if state.namesInUse[info.room]!.isEmpty { state.namesInUse[info.room] = nil }
    }
  }

  private func nextColor(_ state: inout State) -> String {
    defer { state.colorCursor += 1 }
    return Self.palette[state.colorCursor % Self.palette.count]
  }

  private func removeLocked(_ state: inout State, id: MemberID, info: MemberInfo, announceLeave: Bool) {
    let room = info.room
    guard state.rooms[room] != nil else { return }
    // In place (no copy of the room's member set or history per leave).
    state.rooms[room]!.members.remove(id)
    state.rooms[room]!.shardCounts[info.shard, default: 1] -= 1
    if state.rooms[room]!.shardCounts[info.shard] == 0 { state.rooms[room]!.shardCounts[info.shard] = nil }
    let shard = state.shards[info.shard]
    shard.executor.execute { shard.remove(id, room: room) }
    if state.rooms[room]!.members.isEmpty { scheduleIdleCheckLocked(&state, room: room) }
    let r = state.rooms[room]!
    if announceLeave {
      let event = PresenceEvent(
        kind: .leave, author: info.name, room: room, members: r.members.count, color: info.color)
      fanOut(state, room: r, name: room, .presence(event, origin: id))
      state.presenceOutbox.append((event, id))
    }
  }

  /// `room` has no member here any more: unless one joins within the grace, drop it
  /// (``closeIfIdle(_:mark:)``). Only a timer is queued under the lock.
  private func scheduleIdleCheckLocked(_ state: inout State, room: String) {
    guard let grace = configuration.roomIdleGrace else { return }
    state.nextIdleMark += 1
    let mark = state.nextIdleMark
    state.rooms[room]!.idleMark = mark
    let seconds = Double(grace.components.seconds) + Double(grace.components.attoseconds) / 1e18
    DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [weak self] in
      self?.closeIfIdle(room, mark: mark)
    }
  }

  /// The grace of idle check `mark` ran out: drop the room if nobody joined meanwhile, and
  /// tell the broker (``RoomBroker/roomIdle(_:)``). The next join opens it again.
  private func closeIfIdle(_ room: String, mark: UInt64) {
    roomOrder.withLock { _ in
      let idle = state.withLock { state -> Bool in
        guard let index = state.rooms.index(forKey: room), state.rooms.values[index].idleMark == mark,
          state.rooms.values[index].members.isEmpty, case .ready = state.rooms.values[index].phase
        else { return false }
        state.rooms.remove(at: index)
        return true
      }
      if idle { broker.roomIdle(room) }
    }
  }

  private func emitPresence(_ state: inout State, _ kind: PresenceEvent.Kind, id: MemberID, info: MemberInfo)
  {
    // A member still waiting for its room is announced when it is admitted.
    guard info.placement == .inRoom, let room = state.rooms[info.room] else { return }
    let event = PresenceEvent(
      kind: kind, author: info.name, room: info.room, members: room.members.count, color: info.color)
    fanOut(state, room: room, name: info.room, .presence(event, origin: id))
    state.presenceOutbox.append((event, id))
  }

  private func takePresence(_ state: inout State) -> [(PresenceEvent, MemberID)] {
    guard !state.presenceOutbox.isEmpty else { return [] }
    defer { state.presenceOutbox.removeAll() }
    return state.presenceOutbox
  }

  /// Tells the broker about presence changes (outside the lock).
  private func forward(_ presence: [(PresenceEvent, MemberID)]) {
    for (event, member) in presence { broker.presenceChanged(event, member: member) }
  }

  private func fanOut(_ state: State, room: HubRoom, name: String, _ event: ChatEvent) {
    fanOut(state, shards: room.shardCounts.keys, name: name, event)
  }

  private func fanOut(_ state: State, shards: Dictionary<Int, Int>.Keys, name: String, _ event: ChatEvent) {
    for shardIndex in shards {
      let shard = state.shards[shardIndex]
      shard.executor.execute { shard.deliver(event, room: name) }
    }
  }
}

/// A value used only on one shard's thread, carried through the hub's `Sendable` paths.
struct ShardBound<Value>: @unchecked Sendable {
  // Safety: made on the shard's thread and read only inside a task its executor runs.
  let value: Value
  init(_ value: Value) { self.value = value }
}
