import Dispatch
import SwitchboardWire
import Synchronization

/// The rooms and members of this node, in front of a ``RoomBroker`` that owns each room's
/// order and history.
///
/// Each room is a ``HubRoomCell`` with a lock of its own; each event loop owns a
/// ``HubShard``. A member's ``MemberID`` carries the hub's record of it (room, name,
/// colour), so a publish reads the record, takes its room's lock to decide, and hands a
/// ``MessageDraft`` to the broker, which assigns the id and delivers the message back
/// through ``deliver(_:epoch:origin:)``: that takes the room's lock once, appends to the
/// room's ring and queues one delivery task per shard that has members in the room — so a
/// broadcast crosses threads once per loop, not once per member, every member of a room
/// sees the broker's order, and publishes to two rooms never share a lock here. The
/// directory (room table, member index, shards) has a lock of its own, taken only by
/// joins, leaves, renames, queries and the idle close. Membership changes are queued
/// through the same executors under the room's lock, which is what makes "history up to
/// K, then live from K+1" exact. Lock order: directory, room, member record.
///
/// **Loading.** The first join of a room asks the broker for its state
/// (``RoomBroker/openRoom(_:recent:on:completion:)``) and never waits for it on the
/// caller's thread. Until the answer arrives the room is *loading*: joins, publishes and
/// deliveries to it queue in arrival order (publishes at most
/// ``HubConfiguration/maxQueuedWhileLoading``), and the join's completion runs later, on
/// the member's shard, followed by the queued messages. The hub never calls the broker
/// while it holds one of its locks.
public final class ChatHub: RoomBrokerSink {
  /// The hub's shared tables: touched on membership changes and queries, never on a
  /// publish or delivery of a member the hub made the id of.
  struct Directory {
    var rooms: [String: HubRoomCell] = [:]
    var members: [MemberID: HubMemberRecord] = [:]
    var shards: [HubShard] = []
    var nextJoin: UInt64 = 1
    var colorCursor = 0
  }
  typealias Presence = [(PresenceEvent, MemberID)]

  /// The configuration in force.
  public let configuration: HubConfiguration
  /// Where rooms' ids, history and (in a cluster) remote members come from.
  public let broker: any RoomBroker
  let directory = Mutex(Directory())
  private let nextMember = Atomic<UInt64>(1)
  /// Held while the hub tells the broker a room opens or goes idle, so the broker hears
  /// of one room's closing and reopening in the order the hub decided them.
  let roomOrder = Mutex(())
  /// The injected clock; `nil`: ``ChatClock/milliseconds()``, called directly (no closure
  /// call per message).
  let clock: (@Sendable () -> Int64)?
  /// The broker shows this node's presence lines (``RoomBroker/showsOwnPresence``).
  private let brokerShowsPresence: Bool
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
    self.clock = clock
    brokerShowsPresence = self.broker.showsOwnPresence
    self.broker.attach(self)
  }

  /// Adds a shard whose members are reached through `executor`.
  public func makeShard(executor: ShardExecutor) -> HubShard {
    directory.withLock { directory in
      let shard = HubShard(index: directory.shards.count, executor: executor)
      directory.shards.append(shard)
      return shard
    }
  }

  /// A new member identity; its number is the `N` of the default name `Client N`.
  /// - Parameter transport: how the member is connected (`tcp`, `tls`, `udp`, `ws`, `wss`),
  ///   shown by the server API's presence; another name is kept as not known (`""`).
  public func nextMemberID(transport: String = "") -> MemberID {
    let raw = nextMember.wrappingAdd(1, ordering: .relaxed).oldValue
    return MemberID(raw: raw, record: HubMemberRecord(hub: ObjectIdentifier(self), transport: transport))
  }

  /// The record `id` carries when this hub made it, else the directory's (lock held).
  func record(_ id: MemberID, in directory: borrowing Directory) -> HubMemberRecord? {
    if let record = id.record, record.hub == ObjectIdentifier(self) { return record }
    return directory.members[id]
  }

  /// The record `id` carries when this hub made it, else the directory's.
  func record(_ id: MemberID) -> HubMemberRecord? {
    if let record = id.record, record.hub == ObjectIdentifier(self) { return record }
    return directory.withLock { $0.members[id] }
  }

  /// A name a member asked for (any transport), as the hub admits it: cleaned as
  /// ``sanitizeName(_:)`` cleans it, then held to the line dialect's rule
  /// (``LineDialect/nameRefusal(_:)``), so that no line of the member's can read as a
  /// notice, an error or another author's. The refusal's ``NameRefusal/answer`` is what the
  /// member is told.
  public func admitName(_ raw: String) -> Result<String, NameRefusal> {
    guard let clean = sanitizeName(raw) else { return .failure(.empty) }
    if let refusal = LineDialect.nameRefusal(clean) { return .failure(refusal) }
    return .success(clean)
  }

  /// Normalises a requested name: trimmed, control characters (C0, DEL, C1) removed, at most
  /// `maxNameLength` characters. `nil` when nothing visible is left (format characters
  /// such as U+200B alone are no name; docs/BAD-INPUT.md).
  public func sanitizeName(_ raw: String) -> String? {
    LineDialect.cleanName(raw, maxLength: configuration.maxNameLength)
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
    // One spelling for the room cell and so for the broker's keys and the store's rows: the
    // hub's dictionary already treats canonically equivalent names as one (String equality),
    // the broker and the store would not (RoomName).
    let room = RoomName.canonical(room)
    let id = member.memberID
    enum Outcome {
      case joined(JoinResult)
      case queued(load: Bool)
    }
    var presence: Presence = []
    let (outcome, cell) = directory.withLock { directory -> (Outcome, HubRoomCell) in
      let record = record(id, in: directory) ?? HubMemberRecord(hub: ObjectIdentifier(self))
      directory.members[id] = record
      let previous = record.info.withLock { $0 }
      // Joining the room one is already in (a resume) only replays: no leave/join noise.
      let sameRoom = previous?.room == room && previous?.placement == .inRoom
      if previous?.room != room { record.joined.store(clock?() ?? ChatClock.milliseconds(), ordering: .relaxed) }
      if let previous {
        previous.cell.state.withLock { r in
          if !sameRoom, previous.placement == .inRoom {
            removeLocked(
              &r, previous.cell, id: id, info: previous, announceLeave: previous.announced, &presence)
          }
          r.releaseName(previous.name)
        }
      }
      let wasAnnounced = previous?.announced == true
      // A join of the room it is already in (or waiting for) keeps its name. Passing the
      // current name (a move to another room) keeps the name asked for, so `alice (2)` is
      // `alice` again in a room where `alice` is free.
      let keep = previous?.room == room
      let requested = previous.map { keep || name == $0.name ? $0.requestedName : name } ?? name
      let load = directory.rooms[room] == nil
      let cell = directory.rooms[room] ?? HubRoomCell(name: room, capacity: configuration.historyLimit)
      if load { directory.rooms[room] = cell }
      let color = previous?.colorIndex ?? nextColor(&directory)
      let serial = directory.nextJoin
      directory.nextJoin += 1
      let outcome = cell.state.withLock { r -> Outcome in
        let info = HubMemberInfo(
          name: keep ? previous!.name : uniqueName(r, requested), requestedName: requested,
          cell: cell, colorIndex: color, announced: wasAnnounced || announce, shard: shard,
          placement: r.isOpen ? .inRoom : .joining(serial), brokerRoom: r.brokerRoom)
        r.useName(info.name)
        guard r.isOpen else {
          record.info.withLock { $0 = info }
          r.enqueue(
            .join(
              PendingJoin(
                member: member, shard: shard, serial: serial, since: since, epoch: epoch,
                historyCount: historyCount, completion: completion)))
          return .queued(load: load)
        }
        let result = admitLocked(
          &r, cell, member, shard: shard, id: id, color: info.color, alreadyIn: sameRoom, since: since,
          epoch: epoch, historyCount: historyCount)
        record.info.withLock { $0 = info }
        if sameRoom ? (announce && !wasAnnounced) : info.announced {
          emitPresenceLocked(&r, cell, .join, id: id, info: info, &presence)
        }
        return .joined(result)
      }
      return (outcome, cell)
    }
    forward(presence)
    switch outcome {
    case .joined(let result):
      completion?(result)
    case .queued(let load):
      guard load else { return }
      roomOrder.withLock { _ in
        broker.openRoom(room, recent: configuration.historyLimit, on: shard.executor) { [self] result in
          roomOpened(cell, result)
        }
      }
    }
  }

  /// Announces a member that joined silently (its name is now known).
  public func announce(_ id: MemberID) {
    var presence: Presence = []
    directory.withLock { directory in
      guard let record = record(id, in: directory), let old = record.info.withLock({ $0 }), !old.announced
      else { return }
      let info = old.with(announced: true)
      info.cell.state.withLock { r in
        record.info.withLock { $0 = info }
        emitPresenceLocked(&r, info.cell, .join, id: id, info: info, &presence)
      }
    }
    forward(presence)
  }

  /// Whether the member's join has been announced.
  public func isAnnounced(_ id: MemberID) -> Bool {
    record(id)?.info.withLock { $0?.announced } ?? false
  }

  /// Renames a member; announced members' rooms see `* old is now new`. With
  /// ``HubConfiguration/uniqueNames`` a name another member of the room has becomes
  /// `name (2)` (or the next free number).
  /// - Returns: the member's name now (`nil` for an unknown member).
  @discardableResult
  public func rename(_ id: MemberID, to name: String) -> String? {
    var presence: Presence = []
    let assigned = directory.withLock { directory -> String? in
      guard let record = record(id, in: directory), let current = record.info.withLock({ $0 }) else {
        return nil
      }
      let old = current.name
      return current.cell.state.withLock { r in
        r.releaseName(old)
        let info = current.with(name: name == old ? old : uniqueName(r, name), requestedName: name)
        r.useName(info.name)
        record.info.withLock { $0 = info }
        if info.announced, info.name != old {
          emitPresenceLocked(&r, info.cell, .rename(from: old), id: id, info: info, &presence)
        }
        return info.name
      }
    }
    forward(presence)
    return assigned
  }

  /// Removes a member for good (its connection closed); the room sees a leave if it saw
  /// the join.
  public func leave(_ id: MemberID) {
    var presence: Presence = []
    directory.withLock { directory in
      guard let record = directory.members.removeValue(forKey: id),
        let info = record.info.withLock({ info in
          defer { info = nil }
          return info
        })
      else { return }
      info.cell.state.withLock { r in
        r.releaseName(info.name)
        guard info.placement == .inRoom else { return }
        removeLocked(&r, info.cell, id: id, info: info, announceLeave: info.announced, &presence)
      }
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
  ///     id (``MessageDraft/clientKey(ref:subject:name:address:text:)``).
  ///   - subject: the sender's token `sub` when the server checks tokens: the ref's scope
  ///     (else the name the sender asked for, before it was made unique in the room).
  ///   - address: without a `subject`, the sender's IP address (no port), which scopes the
  ///     ref together with the name so that nobody elsewhere can claim it by asking for the
  ///     same name (``MessageDraft/clientKey(ref:subject:name:address:text:)``).
  ///   - completion: runs on the sender's shard once the broker kept the message (the
  ///     server sends the `ack` frame then) or failed to; never before the message itself
  ///     was queued for delivery.
  /// - Returns: `false` when the member is unknown (nothing was sent).
  @discardableResult
  public func publish(
    from id: MemberID, text: String, isAction: Bool = false, ref: String? = nil, subject: String? = nil,
    address: String? = nil, completion: (@Sendable (Result<PublishReceipt, BrokerError>) -> Void)? = nil
  ) -> Bool {
    var text = text
    return text.withUTF8 {
      publish(
        from: id, validatedUTF8: UnsafeRawBufferPointer($0), isAction: isAction, ref: ref, subject: subject,
        address: address, completion: completion)
    }
  }

  /// ``publish(from:text:isAction:ref:subject:address:completion:)`` of a text given as bytes the
  /// caller has checked to be UTF-8 (a WebSocket text frame in the decoder's buffer): they
  /// are copied into the message, with no `String` made of them. `textNeedsNoJSONEscape`:
  /// the caller also found no byte in them that a JSON string escapes
  /// (``ChatMessage/textNeedsNoJSONEscape``). (Never inlined into the `String` variant:
  /// `benchmarks/callgrind.sh` counts its calls, one per message.)
  @discardableResult
  @inline(never)
  package func publish(
    from id: MemberID, validatedUTF8 text: UnsafeRawBufferPointer, textNeedsNoJSONEscape: Bool = false,
    isAction: Bool = false, ref: String? = nil, subject: String? = nil, address: String? = nil,
    completion: (@Sendable (Result<PublishReceipt, BrokerError>) -> Void)? = nil
  ) -> Bool {
    guard let record = record(id) else { return false }
    let now = clock?() ?? ChatClock.milliseconds()
    // The member's state is one immutable reference: taken out of the lock with one
    // retain, the draft made from it outside. The draft carries the broker's handle of the
    // room, which saves the broker a look-up by name (`nil` while the member waits for the
    // room: a queued draft gets it when the snapshot is in).
    guard let info = record.info.withLock({ $0 }) else { return false }
    let message = ChatMessage(
      id: 0, room: info.room, time: now, author: info.name, color: info.color, validatedUTF8: text,
      isAction: isAction, textNeedsNoJSONEscape: textNeedsNoJSONEscape,
      stringsNeedNoJSONEscape: info.stringsNeedNoJSONEscape)
    let key = ref.map {
      MessageDraft.clientKey(
        ref: $0, subject: subject, name: info.requestedName, address: address, textUTF8: text)
    }
    // A ready room first, with nothing captured (a closure here that captured the draft
    // copied and destroyed it per message), and the draft made in the call's argument (one
    // kept in a local was copied and destroyed too); else the full decision.
    guard info.cell.state.withLock({ $0.isReady }) else {
      return publishToRoomNotReady(
        MessageDraft(content: message, origin: id, clientKey: key, brokerRoom: info.brokerRoom), info: info,
        completion: completion)
    }
    broker.publish(
      MessageDraft(content: message, origin: id, clientKey: key, brokerRoom: info.brokerRoom),
      on: completion == nil ? nil : info.shard.executor, completion: completion)
    return true
  }

  /// The publish of a room not ready when asked: queued behind its load, refused, or sent
  /// after all (it became ready meanwhile).
  @inline(never)
  private func publishToRoomNotReady(
    _ draft: MessageDraft, info: HubMemberInfo, completion: (@Sendable (Result<PublishReceipt, BrokerError>) -> Void)?
  ) -> Bool {
    let admission = info.cell.state.withLock { r in
      r.admitPublish(limit: configuration.maxQueuedWhileLoading) {
        HubRoom.QueuedPublish(
          draft: draft, answer: PendingPublish(executor: info.shard.executor, completion: completion))
      }
    }
    switch admission {
    case .closed:
      return false
    case .send:
      broker.publish(draft, on: completion == nil ? nil : info.shard.executor, completion: completion)
    case .queued:
      break
    case .busy:
      keepFailed(room: info.cell.name, id: nil, error: .busy)
      if let completion { info.shard.executor.execute { completion(.failure(.busy)) } }
    }
    return true
  }

  /// Relays binary data from `id` to its room (not kept in history, this node only).
  public func publishBinary(from id: MemberID, bytes: [UInt8]) {
    // Only the room and its cell are read out (copying the whole info costs a retain or
    // release per field).
    guard
      let (room, cell) = record(id)?.info.withLock({ info -> (String, HubRoomCell)? in
        guard let info, info.placement == .inRoom else { return nil }
        return (info.room, info.cell)
      })
    else { return }
    let event = ChatEvent.binary(room: room, bytes: bytes, origin: id.detached)
    cell.state.withLock { r in
      guard r.isOpen else { return }
      fanOut(r.shards, event)
    }
  }

  /// Tells every member on every shard that the server is going away.
  public func broadcastShutdown(reason: String) {
    for shard in directory.withLock({ $0.shards }) {
      shard.executor.execute { shard.deliverToAll(.shutdown(reason: reason)) }
    }
  }

  // MARK: RoomBrokerSink

  /// Delivers a message the broker sequenced to this node's members of its room (see
  /// ``RoomBrokerSink``). A message of a room still loading waits for the snapshot; one
  /// whose id was already delivered is dropped; a new epoch starts the room's ring afresh.
  public func deliver(_ message: ChatMessage, epoch: String, origin: MemberID?) {
    // A message published here finds its room through the sender's record; one from
    // another node (or from a sender that moved on) through the room table.
    if let record = origin?.record, record.hub == ObjectIdentifier(self),
      let cell = record.info.withLock({ $0?.cell(ifIn: message.room) }),
      cell.state.withLock({ deliverLocked(&$0, message, epoch: epoch, origin: origin) })
    {
      return
    }
    guard let cell = directory.withLock({ $0.rooms[message.room] }) else { return }
    _ = cell.state.withLock { deliverLocked(&$0, message, epoch: epoch, origin: origin) }
  }

  /// Shows another node's join, leave or rename to this node's members of the room (not
  /// kept in history); ignored while the room is not open here.
  public func remotePresence(_ event: PresenceEvent) {
    showPresence(event, origin: nil)
  }

  /// Shows the join, leave or rename of this node's `member` that the broker passed back
  /// with the cluster-wide count (``RoomBroker/showsOwnPresence``); ignored while the room
  /// is not open here.
  public func ownPresence(_ event: PresenceEvent, member: MemberID) {
    showPresence(event, origin: member.detached)
  }

  private func showPresence(_ event: PresenceEvent, origin: MemberID?) {
    guard let cell = directory.withLock({ $0.rooms[event.room] }) else { return }
    cell.state.withLock { r in
      guard r.isOpen else { return }
      fanOut(r.shards, .presence(event, origin: origin))
    }
  }

  /// Passes the failure to `onPublishFailure`.
  public func keepFailed(room: String, id: UInt64?, error: BrokerError) {
    onPublishFailure?(room, id, error)
  }

  // MARK: Internals (room lock held)

  /// Makes `member` a member of the open room (unless `alreadyIn`) and computes its replay.
  func admitLocked(
    _ r: inout HubRoom, _ cell: HubRoomCell, _ member: LocalMember, shard: HubShard, id: MemberID,
    color: String, alreadyIn: Bool, since: UInt64?, epoch: String?, historyCount: Int
  ) -> JoinResult {
    if !alreadyIn {
      r.members.insert(id)
      r.idleMark = nil
      let local = r.addMember(on: shard)
      let member = ShardBound(member)
      shard.executor.execute { local.add(member.value) }
    }
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
      room: cell.name, color: color, history: replay, lastID: r.lastID, epoch: r.epoch,
      complete: complete, members: r.members.count)
  }

  /// Applies a delivery; `false` when the room was closed (the caller looks it up anew).
  func deliverLocked(_ r: inout HubRoom, _ message: ChatMessage, epoch: String, origin: MemberID?) -> Bool {
    switch r.receive(message, epoch: epoch, origin: origin, capacity: configuration.historyLimit) {
    case .closed:
      return false
    case .none:
      return true
    case .fanOut(let shards, let newEpoch):
      if newEpoch { fanOut(shards, .epochChanged(room: message.room, epoch: epoch)) }
      fanOut(shards, message, origin: origin?.detached)
      return true
    }
  }

  /// `requested`, or `requested (N)` with the smallest N from 2 that no member of the room
  /// uses (cut so that it stays within `maxNameLength`). The member itself must not be
  /// counted in `namesInUse` (``HubRoom/releaseName(_:)`` first).
  func uniqueName(_ r: borrowing HubRoom, _ requested: String) -> String {
    guard configuration.uniqueNames, r.namesInUse[requested] != nil else { return requested }
    var n = 2
    while true {
      let suffix = " (\(n))"
      let candidate = String(requested.prefix(max(1, configuration.maxNameLength - suffix.count))) + suffix
      if r.namesInUse[candidate] == nil { return candidate }
      n += 1
    }
  }

  private func nextColor(_ directory: inout Directory) -> UInt8 {
    defer { directory.colorCursor += 1 }
    return UInt8(directory.colorCursor % Self.palette.count)
  }

  func removeLocked(
    _ r: inout HubRoom, _ cell: HubRoomCell, id: MemberID, info: HubMemberInfo, announceLeave: Bool,
    _ presence: inout Presence
  ) {
    r.members.remove(id)
    if let local = r.removeMember(on: info.shard) {
      info.shard.executor.execute { local.remove(id) }
    }
    if r.members.isEmpty { scheduleIdleCheckLocked(&r, cell) }
    if announceLeave {
      let event = PresenceEvent(
        kind: .leave, author: info.name, room: cell.name, members: r.members.count, color: info.color)
      if !brokerShowsPresence { fanOut(r.shards, .presence(event, origin: id.detached)) }
      presence.append((event, id.detached))
    }
  }

  func emitPresenceLocked(
    _ r: inout HubRoom, _ cell: HubRoomCell, _ kind: PresenceEvent.Kind, id: MemberID, info: HubMemberInfo,
    _ presence: inout Presence
  ) {
    // A member still waiting for its room is announced when it is admitted.
    guard info.placement == .inRoom else { return }
    let event = PresenceEvent(
      kind: kind, author: info.name, room: cell.name, members: r.members.count, color: info.color)
    // A broker that counts every node's members shows the line itself, with that count.
    if !brokerShowsPresence { fanOut(r.shards, .presence(event, origin: id.detached)) }
    // With its record: a cluster broker keeps the transport and join time (MemberID.connection).
    presence.append((event, id))
  }

  /// Tells the broker about presence changes (outside the locks).
  func forward(_ presence: Presence) {
    for (event, member) in presence { broker.presenceChanged(event, member: member) }
  }

  /// Queues `event` on each shard with members in the room (under the room's lock, so
  /// each shard sees the room's events in the room's order).
  func fanOut(_ shards: [HubRoom.ShardShare], _ event: ChatEvent) {
    for share in shards {
      let local = share.room
      local.executor.execute { local.deliver(event) }
    }
  }

  /// ``fanOut(_:_:)`` of `.message(message, origin: origin)`: posted to each shard's side
  /// of the room, where the messages of one loop iteration share a delivery task
  /// (``HubShardRoom/post(_:origin:)``).
  func fanOut(_ shards: [HubRoom.ShardShare], _ message: ChatMessage, origin: MemberID?) {
    for share in shards { share.room.post(message, origin: origin) }
  }
}

/// A value used only on one shard's thread, carried through the hub's `Sendable` paths.
struct ShardBound<Value>: @unchecked Sendable {
  // Safety: made on the shard's thread and read only inside a task its executor runs.
  let value: Value
  init(_ value: Value) { self.value = value }
}
