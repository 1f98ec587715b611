import SwitchboardWire
import Synchronization

/// What the server API (docs/API.md) asks of the hub: a publish by the server itself into
/// any room, and the rooms and members as the app's backend sees them. None of it is on a
/// member's publish path.
extension ChatHub {
  /// A member of a room as the server API lists it.
  public struct PresenceEntry: Sendable, Hashable {
    /// The member's name in the room.
    public var name: String
    /// How it is connected: `tcp`, `tls`, `udp`, `ws`, `wss` (``nextMemberID(transport:)``).
    public var transport: String
    /// When it entered the room, in milliseconds since the epoch.
    public var since: Int64
  }

  /// A room with members on this node, as the server API lists it.
  public struct RoomSummary: Sendable, Hashable {
    /// The room's name.
    public var name: String
    /// Its members on this node.
    public var members: Int
    /// The last message id delivered here (0 while nothing was, or while it loads).
    public var lastID: UInt64
    /// The epoch of its history (empty while it loads).
    public var epoch: String
  }

  /// The colour of the messages the server publishes (``publish(toRoom:author:text:clientKey:on:completion:)``):
  /// none of the members' palette, so that readers can tell them apart.
  public static let serverColor = "gray"

  /// Publishes `text` into `room` as `author` (a name the caller admitted with
  /// ``admitName(_:)``), from no member: kept and delivered like any member's message,
  /// through the broker, so every node's members receive it and history keeps it. A room
  /// nobody has opened on this node is opened the way a join opens it (the publish waits
  /// behind its load), and, when no member joins, dropped again after
  /// ``HubConfiguration/roomIdleGrace``.
  /// - Parameters:
  ///   - clientKey: the broker's idempotency key (``MessageDraft/clientKey``): a publish
  ///     with a key the broker has seen in the room keeps nothing and answers with the
  ///     first receipt.
  ///   - executor: runs `completion` (and the room's load answer).
  ///   - completion: the id and epoch once the broker kept the message, or why not.
  public func publish(
    toRoom room: String, author: String, text: String, clientKey: String?, on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<PublishReceipt, BrokerError>) -> Void
  ) {
    let room = RoomName.canonical(room)
    let now = clock?() ?? ChatClock.milliseconds()
    let message = ChatMessage(id: 0, room: room, time: now, author: author, color: Self.serverColor, text: text)
    let draft = MessageDraft(message, origin: nil, clientKey: clientKey)
    // A room dropped by the idle close between the look-up and the publish is looked up
    // (and so opened) again; the close cannot happen twice to a room that has a publish
    // queued, so twice is enough.
    for _ in 0..<2 {
      let (cell, load) = directory.withLock { directory -> (HubRoomCell, Bool) in
        if let cell = directory.rooms[room] { return (cell, false) }
        let cell = HubRoomCell(name: room, capacity: configuration.historyLimit)
        directory.rooms[room] = cell
        return (cell, true)
      }
      let answer: @Sendable (Result<PublishReceipt, BrokerError>) -> Void = { [weak self] result in
        self?.closeLaterIfEmpty(cell)
        completion(result)
      }
      let (admission, brokerRoom) = cell.state.withLock { r in
        (
          r.admitPublish(limit: configuration.maxQueuedWhileLoading) {
            HubRoom.QueuedPublish(draft: draft, answer: PendingPublish(executor: executor, completion: answer))
          }, r.brokerRoom
        )
      }
      switch admission {
      case .closed:
        continue
      case .send:
        var draft = draft
        draft.brokerRoom = brokerRoom
        broker.publish(draft, on: executor, completion: answer)
      case .queued:
        break
      case .busy:
        keepFailed(room: room, id: nil, error: .busy)
        executor.execute { completion(.failure(.busy)) }
      }
      if load {
        roomOrder.withLock { _ in
          broker.openRoom(room, recent: configuration.historyLimit, on: executor) { [self] result in
            roomOpened(cell, result)
          }
        }
      }
      return
    }
    executor.execute { completion(.failure(.unavailable("the room \(room) closed while it was published to"))) }
  }

  /// A room the server published into that has no member here: dropped after the idle
  /// grace, as if its last member had just left (unless an idle check already runs).
  private func closeLaterIfEmpty(_ cell: HubRoomCell) {
    cell.state.withLock { r in
      guard r.members.isEmpty, r.idleMark == nil, r.isReady else { return }
      scheduleIdleCheckLocked(&r, cell)
    }
  }

  /// The announced members of `room` on this node (also those whose join waits for the
  /// room to load), sorted by name.
  public func presence(room: String) -> [PresenceEntry] {
    let room = RoomName.canonical(room)
    return directory.withLock { directory in
      directory.members.values.compactMap { record -> PresenceEntry? in
        record.info.withLock { info -> PresenceEntry? in
          guard let info, info.room == room, info.announced else { return nil }
          return PresenceEntry(
            name: info.name, transport: record.transport, since: record.joined.load(ordering: .relaxed))
        }
      }
    }.sorted { ($0.name, $0.since) < ($1.name, $1.since) }
  }

  /// The rooms with members on this node, sorted by name.
  public func roomSummaries() -> [RoomSummary] {
    directory.withLock { directory in
      directory.rooms.compactMap { name, cell -> RoomSummary? in
        cell.state.withLock { r -> RoomSummary? in
          guard !r.members.isEmpty else { return nil }
          return RoomSummary(name: name, members: r.members.count, lastID: r.lastID, epoch: r.epoch)
        }
      }
    }.sorted { $0.name < $1.name }
  }

  /// The members of this node by transport (`tcp`, `udp`, `ws` …): those with a room.
  public func membersByTransport() -> [String: Int] {
    directory.withLock { directory in
      var counts: [String: Int] = [:]
      for record in directory.members.values { counts[record.transport.isEmpty ? "other" : record.transport, default: 0] += 1 }
      return counts
    }
  }

  /// Whether `room` is in the hub's room table now (open, loading, or idle in its grace).
  public func hasRoom(_ room: String) -> Bool {
    cell(RoomName.canonical(room)) != nil
  }
}

extension ChatHub {
  /// Closes every connection of the member called `name` (the name it asked for or the one
  /// it has in its room), in `room` only when given, on this node: each is told `reason`
  /// on its own loop (``LocalMember/disconnect(reason:)``) and leaves.
  /// - Returns: how many connections are being closed.
  public func disconnect(name: String, room: String?, reason: String) -> Int {
    let room = room.map(RoomName.canonical)
    let targets = directory.withLock { directory in
      directory.members.compactMap { id, record -> (MemberID, HubShard)? in
        record.info.withLock { info -> (MemberID, HubShard)? in
          guard let info, info.name == name || info.requestedName == name, room == nil || info.room == room
          else { return nil }
          return (id.detached, info.shard)
        }
      }
    }
    for (id, shard) in targets {
      shard.executor.execute { shard.member(id)?.disconnect(reason: reason) }
    }
    return targets.count
  }
}

extension ChatHub {
  /// Another node's server API disconnects `name` in `room` (in every room when `nil`):
  /// close this node's connections.
  public func remoteDisconnect(name: String, room: String?, reason: String) {
    _ = disconnect(name: name, room: room, reason: reason)
  }
}
