import Synchronization

/// The hub's record of one member: its room, name and colour, reached from the
/// ``MemberID`` itself, so a publish reads it without the hub's directory lock.
///
/// Written only by the hub's membership calls (join, rename, announce, leave), which hold
/// the directory lock, and only after the room's lock when both are held (lock order:
/// directory, room, record). Read by publishes and deliveries with this lock alone.
final class HubMemberRecord: Sendable {
  /// The hub that made the record (an id used with another hub falls back to a lookup).
  let hub: ObjectIdentifier
  /// `nil` until the first join and after the leave.
  let info = Mutex<HubMemberInfo?>(nil)

  init(hub: ObjectIdentifier) { self.hub = hub }
}

/// Where a member stands: what ``HubMemberRecord`` holds.
struct HubMemberInfo {
  /// Where a member stands with its room.
  enum Placement: Equatable {
    /// Waiting for the room to load (the pending join's serial).
    case joining(UInt64)
    /// A member of the room: in its member set and on its shard.
    case inRoom
  }
  /// The name in the member's room: `requestedName`, or that with ` (N)` when it is taken.
  var name: String
  /// The name the member asked for (see ``HubConfiguration/uniqueNames``).
  var requestedName: String
  /// The room's object, found once at the join.
  var cell: HubRoomCell
  /// The room's name (its cell's: not stored twice, 16 bytes a member).
  var room: String { cell.name }
  /// The colour, as its index in ``ChatHub/palette`` (one byte, not a 16-byte `String`).
  var colorIndex: UInt8
  var color: String { ChatHub.palette[Int(colorIndex)] }
  var announced: Bool
  var shard: HubShard
  var placement: Placement
  /// The broker's object for the room (``HubRoom/brokerRoom`` when the member was
  /// admitted; `nil` while waiting), put into the member's drafts.
  var brokerRoom: BrokerRoomHandle?

  /// A message this member sends: its draft, the room's cell and the member's shard.
  /// Noncopyable, so that the publish path moves it out of the record's lock and borrows
  /// it after (copied, it cost an outlined copy of the draft and two destroys through
  /// value witnesses per message).
  struct Publication: ~Copyable {
    let draft: MessageDraft
    let cell: HubRoomCell
    let shard: HubShard

    /// Makes the draft in place (a draft made first and passed in was copied in and
    /// destroyed).
    init(
      _ message: ChatMessage, origin: MemberID, clientKey: String?, brokerRoom: BrokerRoomHandle?,
      cell: HubRoomCell, shard: HubShard
    ) {
      draft = MessageDraft(message, origin: origin, clientKey: clientKey, brokerRoom: brokerRoom)
      self.cell = cell
      self.shard = shard
    }
  }

  /// The publication of a message this member sends (read where the info is, not from a
  /// copy of it).
  func publication(
    from id: MemberID, text: String, isAction: Bool, ref: String?, subject: String?, time: Int64
  ) -> Publication {
    let message = ChatMessage(id: 0, room: room, time: time, author: name, color: color, text: text, isAction: isAction)
    let key = ref.map { MessageDraft.clientKey(ref: $0, subject: subject, name: requestedName, text: text) }
    return Publication(message, origin: id, clientKey: key, brokerRoom: brokerRoom, cell: cell, shard: shard)
  }

  /// The room's cell when the member is (still) in `room`.
  func cell(ifIn room: String) -> HubRoomCell? { self.room == room ? cell : nil }
}
