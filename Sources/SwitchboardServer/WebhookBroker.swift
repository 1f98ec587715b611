import SwitchboardChat
import SwitchboardWire
import Synchronization

/// A ``SwitchboardChat/RoomBroker`` around another that turns what passes through it into
/// webhook events: the hub needs no change, and the events are the ones the broker already
/// sees, outside the hub's locks.
///
/// - `member.joined` / `member.left`: this node's announced members' presence changes
///   (``SwitchboardChat/RoomBroker/presenceChanged(_:member:)``, or, for a broker that
///   counts members cluster-wide, ``SwitchboardChat/RoomBrokerSink/ownPresence(_:member:)``),
///   so each is sent by the node the member is connected to. A rename is `member.left` of
///   the old name and `member.joined` of the new one.
/// - `room.occupied` / `room.vacated`: the room's count of announced members goes 0 → 1 or
///   1 → 0. With one node, this node's count; under `--redis`, the cluster-wide count the
///   Redis presence script returns with the change, atomically with it — so of two nodes
///   whose members come and go at once, exactly one sees the 0 → 1 (or 1 → 0).
/// - `message.published`: a message delivered with an origin on this node
///   (``SwitchboardChat/RoomBrokerSink/deliver(_:epoch:origin:)``), in id order per room,
///   and a server API publish (no origin) once the broker kept it, on the node it reached.
public final class WebhookBroker: RoomBroker, RoomBrokerSink {
  /// The broker doing the work.
  public let inner: any RoomBroker
  /// Where the events go.
  public let dispatcher: WebhookDispatcher
  private let sink = Mutex<(any RoomBrokerSink)?>(nil)
  /// This node's announced members per room (for a broker without cluster-wide counts).
  private let counts = Mutex<[String: Int]>([:])
  private let countsCluster: Bool

  /// Wraps `inner`, sending through `dispatcher`.
  public init(inner: any RoomBroker, dispatcher: WebhookDispatcher) {
    self.inner = inner
    self.dispatcher = dispatcher
    countsCluster = inner.showsOwnPresence
  }

  // MARK: RoomBroker (forwarded)

  public func attach(_ sink: any RoomBrokerSink) {
    self.sink.withLock { $0 = sink }
    inner.attach(self)
  }

  public func openRoom(
    _ room: String, recent limit: Int, on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<RoomSnapshot, BrokerError>) -> Void
  ) {
    inner.openRoom(room, recent: limit, on: executor, completion: completion)
  }

  public func publish(
    _ draft: MessageDraft, on executor: (any ShardExecutor)?,
    completion: (@Sendable (Result<PublishReceipt, BrokerError>) -> Void)?
  ) {
    // A message without an origin is the server API's (`POST /api/publish`): it comes back
    // through ``deliver(_:epoch:origin:)`` without one, like another node's, so it is
    // reported here, once the broker kept it and gave it its id, by the node the request
    // reached.
    guard draft.origin == nil else {
      inner.publish(draft, on: executor, completion: completion)
      return
    }
    let dispatcher = dispatcher
    inner.publish(draft, on: executor) { result in
      if case .success(let receipt) = result {
        let message = draft.content
        dispatcher.enqueue([
          WebhookEvent(
            type: .messagePublished, room: message.room, messageID: receipt.id, author: message.author,
            text: message.text, time: message.time)
        ])
      }
      completion?(result)
    }
  }

  public func history(
    room: String, after id: UInt64, limit: Int, on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<[ChatMessage], BrokerError>) -> Void
  ) {
    inner.history(room: room, after: id, limit: limit, on: executor, completion: completion)
  }

  public func presenceChanged(_ event: PresenceEvent, member: MemberID) {
    if !countsCluster {
      // Counted and queued under one lock, so the events leave in the order of the counts.
      counts.withLock { counts in
        let before = counts[event.room] ?? 0
        let after: Int
        switch event.kind {
        case .join: after = before + 1
        case .leave: after = max(0, before - 1)
        case .rename: after = before
        }
        counts[event.room] = after == 0 ? nil : after
        dispatcher.enqueue(Self.events(event, before: before, after: after))
      }
    }
    inner.presenceChanged(event, member: member)
  }

  public var showsOwnPresence: Bool { inner.showsOwnPresence }

  public func remoteMembers(
    room: String, on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<[String], BrokerError>) -> Void
  ) {
    inner.remoteMembers(room: room, on: executor, completion: completion)
  }

  public func remoteMemberNodes(
    room: String, on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<[RemoteMember], BrokerError>) -> Void
  ) {
    inner.remoteMemberNodes(room: room, on: executor, completion: completion)
  }

  public func roomIdle(_ room: String) { inner.roomIdle(room) }

  // Every requirement with a default is forwarded too: the default would answer for a
  // single node (no other nodes' rooms, no disconnect order sent).
  public func openRooms(
    on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<[(room: String, members: Int)], BrokerError>) -> Void
  ) {
    inner.openRooms(on: executor, completion: completion)
  }

  public func disconnect(name: String, room: String?, reason: String) {
    inner.disconnect(name: name, room: room, reason: reason)
  }

  public var sharesNodeStatus: Bool { inner.sharesNodeStatus }

  public func storeNodeStatus(node: String, _ status: [UInt8]) { inner.storeNodeStatus(node: node, status) }

  public func nodeStatuses(
    on executor: any ShardExecutor, completion: @escaping @Sendable (Result<[NodeStatus], BrokerError>) -> Void
  ) {
    inner.nodeStatuses(on: executor, completion: completion)
  }

  public func forgetNodeStatuses(_ nodes: [String]) { inner.forgetNodeStatuses(nodes) }

  public func relayTyping(_ event: TypingEvent) { inner.relayTyping(event) }

  public func close() {
    inner.close()
    dispatcher.close()
    sink.withLock { $0 = nil }
  }

  public var health: BrokerHealth { inner.health }

  public func knownRooms(limit: Int) -> [String] { inner.knownRooms(limit: limit) }

  // MARK: RoomBrokerSink (observed, then forwarded to the hub)

  public func deliver(_ message: ChatMessage, epoch: String, origin: MemberID?) {
    if origin != nil {
      dispatcher.enqueue([
        WebhookEvent(
          type: .messagePublished, room: message.room, messageID: message.id, author: message.author,
          text: message.text, time: message.time)
      ])
    }
    sink.withLock { $0 }?.deliver(message, epoch: epoch, origin: origin)
  }

  public func keepFailed(room: String, id: UInt64?, error: BrokerError) {
    sink.withLock { $0 }?.keepFailed(room: room, id: id, error: error)
  }

  public func remotePresence(_ event: PresenceEvent) {
    sink.withLock { $0 }?.remotePresence(event)
  }

  public func ownPresence(_ event: PresenceEvent, member: MemberID) {
    // `event.members` is the cluster-wide count right after this change.
    let after = event.members
    let before: Int
    switch event.kind {
    case .join: before = after - 1
    case .leave: before = after + 1
    case .rename: before = after
    }
    dispatcher.enqueue(Self.events(event, before: before, after: after))
    sink.withLock { $0 }?.ownPresence(event, member: member)
  }

  public func remoteDisconnect(name: String, room: String?, reason: String) {
    sink.withLock { $0 }?.remoteDisconnect(name: name, room: room, reason: reason)
  }

  public func remoteTyping(_ event: TypingEvent) {
    sink.withLock { $0 }?.remoteTyping(event)
  }

  public func expiredPresence(_ event: PresenceEvent) {
    // `event.members` counts what is left after every expired entry of the call: a vacated
    // room is reported after the last of its leaves.
    dispatcher.enqueue(Self.events(event, before: event.members + 1, after: event.members))
    sink.withLock { $0 }?.expiredPresence(event)
  }

  /// The webhook events of one presence change that took the room's count from `before`
  /// to `after`: occupied before the first join, vacated after the last leave.
  static func events(_ event: PresenceEvent, before: Int, after: Int) -> [WebhookEvent] {
    let now = ChatClock.milliseconds()
    var events: [WebhookEvent] = []
    switch event.kind {
    case .join:
      if before == 0, after >= 1 {
        events.append(WebhookEvent(type: .roomOccupied, room: event.room, time: now))
      }
      events.append(WebhookEvent(type: .memberJoined, room: event.room, member: event.author, time: now))
    case .leave:
      events.append(WebhookEvent(type: .memberLeft, room: event.room, member: event.author, time: now))
      if after == 0 { events.append(WebhookEvent(type: .roomVacated, room: event.room, time: now)) }
    case .rename(let old):
      events.append(WebhookEvent(type: .memberLeft, room: event.room, member: old, time: now))
      events.append(WebhookEvent(type: .memberJoined, room: event.room, member: event.author, time: now))
    }
    return events
  }
}
