import SwitchboardChat
import SwitchboardWire

/// A ``LocalRoomBroker`` behind a broker the test controls: subclasses override the one
/// requirement they change (the health, a room's opening) and the rest goes to the local
/// broker.
class ForwardingBroker: RoomBroker, @unchecked Sendable {
  let local = LocalRoomBroker(retention: 1000)

  var health: BrokerHealth { local.health }
  func attach(_ sink: any RoomBrokerSink) { local.attach(sink) }
  func openRoom(
    _ room: String, recent limit: Int, on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<RoomSnapshot, BrokerError>) -> Void
  ) { local.openRoom(room, recent: limit, on: executor, completion: completion) }
  func publish(
    _ draft: MessageDraft, on executor: (any ShardExecutor)?,
    completion: (@Sendable (Result<PublishReceipt, BrokerError>) -> Void)?
  ) { local.publish(draft, on: executor, completion: completion) }
  func history(
    room: String, after id: UInt64, limit: Int, on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<[ChatMessage], BrokerError>) -> Void
  ) { local.history(room: room, after: id, limit: limit, on: executor, completion: completion) }
  func presenceChanged(_ event: PresenceEvent, member: MemberID) { local.presenceChanged(event, member: member) }
  func remoteMembers(
    room: String, on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<[String], BrokerError>) -> Void
  ) { local.remoteMembers(room: room, on: executor, completion: completion) }
  func roomIdle(_ room: String) { local.roomIdle(room) }
  func knownRooms(limit: Int) -> [String] { local.knownRooms(limit: limit) }
  func close() { local.close() }
}
