import SwitchboardWire

/// Where a room's order and history live: the seam between the hub and the broker that
/// assigns ids, keeps messages and delivers them to every node's members.
///
/// The hub (``ChatHub``) keeps the members of this node and a ring of each room's recent
/// messages; everything else — the next id, the kept history, the epoch and, in a
/// cluster, the other nodes' members — is the broker's. Two brokers fit the protocol:
/// ``LocalRoomBroker`` (ids assigned in this process, history in a ``HistoryStore``) and a
/// cluster broker (ids from a shared server, messages fanned out to every node).
///
/// Every call returns at once and never blocks its caller on disk or network: answers
/// come through completions, each run on the ``ShardExecutor`` the caller hands in (its
/// own event loop), so a completion may touch the caller's loop-confined state.
///
/// Delivery contract:
/// - A published message reaches this node's members only through
///   ``RoomBrokerSink/deliver(_:epoch:origin:)`` on the attached sink, whether it was
///   published here or on another node. For each room the broker calls it in id order,
///   from one thread at a time, and never twice for one id in one epoch.
/// - For a message published here, the delivery is handed to the sink before the
///   publish's completion is queued, so an `ack` never overtakes the message itself.
/// - The hub never calls a broker while holding its own lock; a broker may call the
///   sink while holding its lock (the local broker does, which is what keeps ids and
///   delivery in one order).
public protocol RoomBroker: AnyObject, Sendable {
  /// Sets where messages are delivered. The hub calls it once, when it is made; the
  /// broker holds the sink until ``close()``.
  func attach(_ sink: any RoomBrokerSink)

  /// Opens `room` on this node: its last id, its epoch and up to `limit` newest kept
  /// messages. From the moment the broker has the room's state it delivers the room's
  /// new messages to the sink (a cluster broker subscribes here); messages it delivers
  /// before `completion` runs may also be in the snapshot (the hub drops ids it has).
  /// - Parameters:
  ///   - executor: runs `completion`.
  ///   - completion: the snapshot, or why the room could not be opened.
  func openRoom(
    _ room: String, recent limit: Int, on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<RoomSnapshot, BrokerError>) -> Void)

  /// Assigns the room's next id to `draft`, keeps the message and delivers it to every
  /// node's members (this node's through the sink). Only for rooms opened with
  /// ``openRoom(_:recent:on:completion:)``.
  /// - Parameters:
  ///   - executor: runs `completion`; `nil` lets it run on any thread (the hub passes
  ///     `nil` when nobody waits for the answer).
  ///   - completion: the id and epoch once the message is kept as the broker's
  ///     durability defines (the server sends `ack` then), or why it was not kept. A
  ///     failure is also reported to the sink's ``RoomBrokerSink/keepFailed(room:id:error:)``.
  func publish(
    _ draft: MessageDraft, on executor: (any ShardExecutor)?,
    completion: (@Sendable (Result<PublishReceipt, BrokerError>) -> Void)?)

  /// Kept messages of `room` with an id above `id`, oldest first, at most `limit` (for a
  /// `since` older than the hub's ring, or a gap to fill).
  func history(
    room: String, after id: UInt64, limit: Int, on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<[ChatMessage], BrokerError>) -> Void)

  /// A member of this node joined, left or renamed (announced members only), so a cluster
  /// broker can keep presence cluster-wide. Returns at once.
  func presenceChanged(_ event: PresenceEvent, member: MemberID)

  /// Whether the broker shows this node's own presence changes: then the hub does not show
  /// a join, leave or rename line when it happens, and the broker hands each event of
  /// ``presenceChanged(_:member:)`` back through ``RoomBrokerSink/ownPresence(_:member:)``
  /// once it knows the room's count on every node. The default is `false` (the hub shows
  /// the line at once, with its own count).
  var showsOwnPresence: Bool { get }

  /// Names of the members of `room` on other nodes (empty for a single node).
  func remoteMembers(
    room: String, on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<[String], BrokerError>) -> Void)

  /// `room` has had no member on this node for ``HubConfiguration/roomIdleGrace``: the
  /// hub dropped it (its ring too) and opens it again with
  /// ``openRoom(_:recent:on:completion:)`` on the next join. A cluster broker stops
  /// delivering it here (the Redis broker unsubscribes its channel); the local broker
  /// forgets the room's client keys and keeps its sequence. Returns at once. The default
  /// does nothing.
  func roomIdle(_ room: String)

  /// Relays a typing event of this node's member to the other nodes (see the default).
  func relayTyping(_ event: TypingEvent)

  /// Keeps what was published (the local broker commits its store), stops delivering
  /// and releases the sink. Called once, when the server stops.
  func close()

  /// The members of `room` on other nodes with the node each is on, how it is connected and
  /// since when in ms since the epoch (the server API's presence; `nil` when that node does
  /// not say). The default: ``remoteMembers(room:on:completion:)`` with no node.
  func remoteMemberNodes(
    room: String, on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<[RemoteMember], BrokerError>) -> Void)

  /// The rooms with members on any node and how many each has on all of them (the server
  /// API's room list); empty when the broker cannot tell (a single node: the hub's own
  /// rooms are all there are). The default is empty.
  func openRooms(
    on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<[(room: String, members: Int)], BrokerError>) -> Void)

  /// The server API's disconnect (docs/API.md): tells the other nodes with `room` open, or
  /// every other node when `room` is `nil`, to close their members called `name` (in
  /// `room` only, when given), telling them `reason`
  /// (``RoomBrokerSink/remoteDisconnect(name:room:reason:)``). Returns at once. The default
  /// does nothing (a single node has no others).
  func disconnect(name: String, room: String?, reason: String)

  /// Whether the broker can do its work now (`GET /readyz`). Read from any thread, often:
  /// it must return at once. The default is always ``BrokerHealth/ready``.
  var health: BrokerHealth { get }

  /// The rooms the broker already keeps (on disk, in memory), at most `limit`: the server
  /// counts them against `--max-rooms` when it starts. Returns at once. The default is none.
  func knownRooms(limit: Int) -> [String]

  /// Whether other nodes read what ``storeNodeStatus(node:_:)`` keeps: the server encodes
  /// its status only then. Read from any thread; the default is `false`.
  var sharesNodeStatus: Bool { get }

  /// Keeps `status` (the server's bytes, at most ``NodeStatusLimits/maxBytes``) as node
  /// `node`'s latest, for ``nodeStatuses(on:completion:)`` on every node. Returns at once.
  /// The default keeps nothing.
  func storeNodeStatus(node: String, _ status: [UInt8])

  /// The latest status each node stored, this node's included (at most
  /// ``NodeStatusLimits/maxNodes``; what they say, and how old, is the server's to judge).
  /// The default: none.
  func nodeStatuses(
    on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<[NodeStatus], BrokerError>) -> Void)

  /// Forgets the stored statuses of `nodes` (gone for long). Returns at once. The default
  /// does nothing.
  func forgetNodeStatuses(_ nodes: [String])
}

extension RoomBroker {
  /// None known: rooms are counted as this node opens them.
  public func knownRooms(limit: Int) -> [String] { [] }
}

extension RoomBroker {
  /// Always ready: a broker with nothing to lose contact with.
  public var health: BrokerHealth { .ready }
}

extension RoomBroker {
  /// The hub shows its members' presence lines itself.
  public var showsOwnPresence: Bool { false }
}

extension RoomBroker {
  /// Nothing to release.
  public func roomIdle(_ room: String) {}
}

extension RoomBroker {
  /// A member of this node started or stopped typing: a cluster broker relays it to the
  /// other nodes with the room open (``RoomBrokerSink/remoteTyping(_:)``), ephemeral, never
  /// kept. Returns at once. The default does nothing (a single node has no others).
  public func relayTyping(_ event: TypingEvent) {}
}

/// A member of another node (``RoomBroker/remoteMemberNodes(room:on:completion:)``): its
/// node, name, transport and since when (ms since the epoch; both `nil` when unknown).
public typealias RemoteMember = (node: String, name: String, transport: String?, since: Int64?)

extension RoomBroker {
  /// The names of ``remoteMembers(room:on:completion:)``, each with an empty node.
  public func remoteMemberNodes(
    room: String, on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<[RemoteMember], BrokerError>) -> Void
  ) {
    remoteMembers(room: room, on: executor) { result in
      completion(result.map { $0.map { ("", $0, nil, nil) } })
    }
  }
}

extension RoomBroker {
  /// None: the hub's rooms are all there are.
  public func openRooms(
    on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<[(room: String, members: Int)], BrokerError>) -> Void
  ) {
    executor.execute { completion(.success([])) }
  }
}

extension RoomBroker {
  /// No other node to tell.
  public func disconnect(name: String, room: String?, reason: String) {}
}
