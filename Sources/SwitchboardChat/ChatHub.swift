import Synchronization
import SwitchboardHTTP

/// The rooms, their members and their message sequence: the one place where a message
/// gets its id.
///
/// Each event loop owns a ``HubShard`` with the members living on it. A publish takes the
/// hub's lock once, assigns the room's next id, keeps the message in history and queues
/// one delivery task per shard that has members in the room — so a broadcast crosses
/// threads once per loop, not once per member, and every member of a room sees the same
/// order. Membership changes are queued through the same executors under the same lock,
/// which is what makes "history up to K, then live from K+1" exact.
///
/// This is also the seam for scale-out: a cluster broker replaces the id assignment and
/// fan-out of ``publish(from:text:isAction:stored:)`` without changing the dialects.
public final class ChatHub: Sendable {
  struct MemberInfo {
    var name: String
    var room: String
    var color: String
    var announced: Bool
    var shard: Int
  }
  struct Room {
    var nextID: UInt64 = 1
    var epoch: String
    var history: MessageRing
    var members: Set<MemberID> = []
    var shardCounts: [Int: Int] = [:]
  }
  struct State {
    var rooms: [String: Room] = [:]
    var members: [MemberID: MemberInfo] = [:]
    var shards: [HubShard] = []
    var nextMember: UInt64 = 1
    var colorCursor = 0
  }

  /// The configuration in force.
  public let configuration: HubConfiguration
  private let state = Mutex(State())
  private let clock: @Sendable () -> Int64
  /// Where messages are written through to (in memory unless given).
  public let store: HistoryStore
  /// Told about every message the store failed to keep (the server logs it); delivery
  /// to members is not affected.
  private let onStoreFailure: (@Sendable (ChatMessage, StoreError) -> Void)?

  /// The colours handed to members in turn (the seed chat server's palette).
  public static let palette = ["red", "green", "blue", "magenta", "purple", "plum", "orange"]

  /// Makes a hub. `clock` gives milliseconds since the epoch (injected for tests).
  public init(
    configuration: HubConfiguration = HubConfiguration(), store: HistoryStore? = nil,
    clock: (@Sendable () -> Int64)? = nil, onStoreFailure: (@Sendable (ChatMessage, StoreError) -> Void)? = nil
  ) {
    self.configuration = configuration
    self.onStoreFailure = onStoreFailure
    self.store = store ?? InMemoryHistoryStore(retention: configuration.historyLimit)
    self.clock = clock ?? { ChatClock.milliseconds() }
  }

  /// The room's state, loaded from the store the first time it is used.
  private func roomLocked(_ state: inout State, _ name: String) -> Room {
    if let r = state.rooms[name] { return r }
    var ring = MessageRing(capacity: configuration.historyLimit)
    let snapshot: RoomSnapshot
    do {
      snapshot = try store.loadRoom(name, limit: configuration.historyLimit)
    } catch {
      // The store could not load the room: carry on live with a new epoch, so clients
      // see `recovered: false` instead of a silent gap.
      snapshot = RoomSnapshot(lastID: 0, epoch: InMemoryHistoryStore.newEpoch(), recent: [])
    }
    for m in snapshot.recent { ring.append(m) }
    let room = Room(nextID: snapshot.lastID + 1, epoch: snapshot.epoch, history: ring)
    state.rooms[name] = room
    return room
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
  /// `maxNameLength` characters. `nil` when nothing is left.
  public func sanitizeName(_ raw: String) -> String? {
    let cleaned = String(
      String.UnicodeScalarView(raw.unicodeScalars.filter { !$0.properties.isWhitespace || $0 == " " }
        .filter { $0.value >= 0x20 && $0.value != 0x7F }))
    let trimmed = cleaned.trimmingSpacesAndTabs()
    guard !trimmed.isEmpty else { return nil }
    return String(trimmed.prefix(configuration.maxNameLength))
  }

  /// Puts `member` (living on `shard`) into `room` as `name`. `epoch`, when given, is
  /// the room epoch the client's `since` refers to. When `announce` is true the
  /// room sees a join; otherwise the member receives messages silently until
  /// ``announce(_:)``. Call on the shard's thread.
  /// - Returns: the kept messages the member should be shown first: all after `since`
  ///   when given, else the last `historyCount`, plus whether that covers everything
  ///   after `since` (`false` when some fell out of the window).
  @discardableResult
  public func join(
    _ member: LocalMember, shard: HubShard, name: String, room: String, announce: Bool,
    since: UInt64? = nil, epoch: String? = nil, historyCount: Int = 0
  ) -> JoinResult {
    let id = member.memberID
    // Safety: the closure runs on the member's own shard thread (the shard's executor).
    nonisolated(unsafe) let member = member
    return state.withLock { state -> JoinResult in
      let previous = state.members[id]
      // Joining the room one is already in (a resume) only replays: no leave/join noise.
      let sameRoom = previous?.room == room
      if let previous, !sameRoom {
        removeLocked(&state, id: id, info: previous, room: previous.room, announceLeave: previous.announced)
      }
      let color = previous?.color ?? nextColor(&state)
      _ = roomLocked(&state, room)
      if !sameRoom {
        // In place, so the room's member set and history are not copied per join.
        state.rooms[room]!.members.insert(id)
        state.rooms[room]!.shardCounts[shard.index, default: 0] += 1
        shard.executor.execute { shard.add(member, room: room) }
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
        if since + 1 < (replay.first?.id ?? r.nextID) || since >= r.nextID { complete = false }
      } else {
        replay = r.history.last(historyCount)
      }
      let wasAnnounced = previous?.announced == true
      var info = MemberInfo(
        name: sameRoom ? previous!.name : name, room: room, color: color, announced: false, shard: shard.index)
      if sameRoom {
        info.announced = wasAnnounced || announce
        state.members[id] = info
        if announce && !wasAnnounced { emitPresence(&state, .join, id: id, info: info) }
      } else if announce || wasAnnounced {
        info.announced = true
        state.members[id] = info
        emitPresence(&state, .join, id: id, info: info)
      } else {
        state.members[id] = info
      }
      return JoinResult(
        room: room, color: color, history: replay, lastID: r.nextID - 1, epoch: r.epoch, complete: complete,
        members: r.members.count)
    }
  }

  /// Announces a member that joined silently (its name is now known).
  public func announce(_ id: MemberID) {
    state.withLock { state in
      guard var info = state.members[id], !info.announced else { return }
      info.announced = true
      state.members[id] = info
      emitPresence(&state, .join, id: id, info: info)
    }
  }

  /// Whether the member's join has been announced.
  public func isAnnounced(_ id: MemberID) -> Bool {
    state.withLock { $0.members[id]?.announced ?? false }
  }

  /// Renames a member; announced members' rooms see `* old is now new`.
  public func rename(_ id: MemberID, to name: String) {
    state.withLock { state in
      guard var info = state.members[id], info.name != name else { return }
      let old = info.name
      info.name = name
      state.members[id] = info
      if info.announced { emitPresence(&state, .rename(from: old), id: id, info: info) }
    }
  }

  /// Removes a member for good (its connection closed); the room sees a leave if it saw
  /// the join.
  public func leave(_ id: MemberID) {
    state.withLock { state in
      guard let info = state.members.removeValue(forKey: id) else { return }
      removeLocked(&state, id: id, info: info, room: info.room, announceLeave: info.announced)
    }
  }

  /// Publishes a chat message from `id` to its room.
  /// - Parameters:
  ///   - id: the sender.
  ///   - text: the message text.
  ///   - isAction: a `/me` action rather than a plain message.
  ///   - stored: called once the store holds the message durably (or failed); the server
  ///     sends the `ack` frame then.
  /// - Returns: the message with its id, or `nil` when the member is unknown.
  @discardableResult
  public func publish(
    from id: MemberID, text: String, isAction: Bool = false,
    stored: (@Sendable (Result<Void, StoreError>) -> Void)? = nil
  ) -> ChatMessage? {
    let now = clock()
    return state.withLock { state -> ChatMessage? in
      guard let info = state.members[id], let index = state.rooms.index(forKey: info.room) else { return nil }
      // Mutate the room in place: copying it out and back would copy its whole history
      // ring on every message (it was the top of the profile).
      let message = ChatMessage(
        id: state.rooms.values[index].nextID, room: info.room, time: now, author: info.name, color: info.color,
        text: text, isAction: isAction)
      state.rooms.values[index].nextID += 1
      state.rooms.values[index].history.append(message)
      fanOut(state, shards: state.rooms.values[index].shardCounts.keys, name: info.room, .message(message, origin: id))
      // After the fan-out is queued, so an `ack` never overtakes the message itself.
      if let onStoreFailure {
        store.append(message) { result in
          if case .failure(let error) = result { onStoreFailure(message, error) }
          stored?(result)
        }
      } else {
        store.append(message, completion: stored)
      }
      return message
    }
  }

  /// Relays binary data from `id` to its room (not kept in history).
  public func publishBinary(from id: MemberID, bytes: [UInt8]) {
    state.withLock { state in
      guard let info = state.members[id], let room = state.rooms[info.room] else { return }
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

  // MARK: Queries

  /// The member's current name, room and colour.
  public func member(_ id: MemberID) -> (name: String, room: String, color: String)? {
    state.withLock { state in state.members[id].map { ($0.name, $0.room, $0.color) } }
  }

  /// Names of the announced members of `room`, sorted.
  public func who(room: String) -> [String] {
    state.withLock { state in
      (state.rooms[room]?.members ?? []).compactMap { state.members[$0] }.filter(\.announced).map(\.name)
        .sorted()
    }
  }

  /// Rooms with members, and how many, sorted by name.
  public func rooms() -> [(name: String, members: Int)] {
    state.withLock { state in
      state.rooms.filter { !$0.value.members.isEmpty }.map { ($0.key, $0.value.members.count) }
        .sorted { $0.0 < $1.0 }
    }
  }

  /// The last `count` kept messages of `room`.
  public func history(room: String, last count: Int) -> [ChatMessage] {
    state.withLock { $0.rooms[room]?.history.last(count) ?? [] }
  }

  /// The kept messages of `room` with an id above `id`.
  public func history(room: String, after id: UInt64) -> [ChatMessage] {
    state.withLock { $0.rooms[room]?.history.after(id) ?? [] }
  }

  /// The epoch of `room`'s history.
  public func epoch(room: String) -> String {
    state.withLock { roomLocked(&$0, room).epoch }
  }

  /// Counts for metrics: members and rooms.
  public var counts: (members: Int, rooms: Int) {
    state.withLock { state in (state.members.count, state.rooms.values.filter { !$0.members.isEmpty }.count) }
  }

  // MARK: Internals (lock held)

  private func nextColor(_ state: inout State) -> String {
    defer { state.colorCursor += 1 }
    return Self.palette[state.colorCursor % Self.palette.count]
  }

  private func removeLocked(_ state: inout State, id: MemberID, info: MemberInfo, room: String, announceLeave: Bool) {
    guard state.rooms[room] != nil else { return }
    // In place (no copy of the room's member set or history per leave).
    state.rooms[room]!.members.remove(id)
    state.rooms[room]!.shardCounts[info.shard, default: 1] -= 1
    if state.rooms[room]!.shardCounts[info.shard] == 0 { state.rooms[room]!.shardCounts[info.shard] = nil }
    let shard = state.shards[info.shard]
    shard.executor.execute { shard.remove(id, room: room) }
    let r = state.rooms[room]!
    if announceLeave {
      let event = PresenceEvent(kind: .leave, author: info.name, room: room, members: r.members.count, color: info.color)
      fanOut(state, room: r, name: room, .presence(event, origin: id))
    }
  }

  private func emitPresence(_ state: inout State, _ kind: PresenceEvent.Kind, id: MemberID, info: MemberInfo) {
    guard let room = state.rooms[info.room] else { return }
    let event = PresenceEvent(
      kind: kind, author: info.name, room: info.room, members: room.members.count, color: info.color)
    fanOut(state, room: room, name: info.room, .presence(event, origin: id))
  }

  private func fanOut(_ state: State, room: Room, name: String, _ event: ChatEvent) {
    fanOut(state, shards: room.shardCounts.keys, name: name, event)
  }

  private func fanOut(_ state: State, shards: Dictionary<Int, Int>.Keys, name: String, _ event: ChatEvent) {
    for shardIndex in shards {
      let shard = state.shards[shardIndex]
      shard.executor.execute { shard.deliver(event, room: name) }
    }
  }
}
