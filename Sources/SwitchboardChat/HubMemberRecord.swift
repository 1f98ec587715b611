import SwitchboardWire
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
  /// How the member is connected (``ChatHub/nextMemberID(transport:)``), for the server API's
  /// presence, as its index in ``transports``: one byte where a `String` took 16 and moved
  /// every connection's record up one allocation size (64 → 80 bytes).
  private let transportIndex: UInt8
  /// When the member entered its current room (milliseconds since the epoch; 0 before the
  /// first join), for the server API's presence: kept here, not in ``HubMemberInfo``, whose
  /// size the publish path counts.
  let joined = Atomic<Int64>(0)

  /// The transports a record can name; a name not listed is kept as `""` (not known).
  static let transports = ["", "tcp", "tls", "udp", "ws", "wss"]

  /// How the member is connected: `tcp`, `tls`, `udp`, `ws`, `wss`, or `""` when not known.
  var transport: String { Self.transports[Int(transportIndex)] }

  init(hub: ObjectIdentifier, transport: String = "") {
    self.hub = hub
    self.transportIndex = Self.transports.firstIndex(of: transport).map(UInt8.init) ?? 0
  }
}

/// Where a member stands: what ``HubMemberRecord`` holds. Never changed once made: a change
/// is a new value (``with(name:requestedName:announced:placement:brokerRoom:)``) put in the
/// record. So a publish takes the member's state out of the record's lock as one
/// reference (one retain), and builds its message from it with nothing copied field by
/// field (a struct read out of the lock cost a copy and a destroy of each field, and of the
/// draft made from it, per message).
final class HubMemberInfo: Sendable {
  /// Where a member stands with its room.
  enum Placement: Equatable {
    /// Waiting for the room to load (the pending join's serial).
    case joining(UInt64)
    /// A member of the room: in its member set and on its shard.
    case inRoom
  }
  /// The name in the member's room: `requestedName`, or that with ` (N)` when it is taken.
  let name: String
  /// The name the member asked for (see ``HubConfiguration/uniqueNames``).
  let requestedName: String
  /// The room's object, found once at the join.
  let cell: HubRoomCell
  /// The room's name (its cell's: not stored twice, 16 bytes a member).
  var room: String { cell.name }
  let shard: HubShard
  /// The broker's object for the room (``HubRoom/brokerRoom`` when the member was
  /// admitted; `nil` while waiting), put into the member's drafts.
  let brokerRoom: BrokerRoomHandle?
  // (The nine-byte placement and the one-byte fields last: no padding between them.)
  let placement: Placement
  /// The colour, as its index in ``ChatHub/palette`` (one byte, not a 16-byte `String`).
  let colorIndex: UInt8
  var color: String { ChatHub.palette[Int(colorIndex)] }
  let announced: Bool
  /// Whether ``name`` goes into a JSON string as it is (``JSONDialect/needsNoEscape(_:)``),
  /// asked once per name, not per message. (One byte: the state stays in 96-byte chunks.)
  let nameNeedsNoJSONEscape: Bool

  init(
    name: String, requestedName: String, cell: HubRoomCell, colorIndex: UInt8, announced: Bool,
    shard: HubShard,
    placement: Placement, brokerRoom: BrokerRoomHandle?
  ) {
    self.name = name
    self.requestedName = requestedName
    self.cell = cell
    self.colorIndex = colorIndex
    self.announced = announced
    self.shard = shard
    self.placement = placement
    self.brokerRoom = brokerRoom
    nameNeedsNoJSONEscape = JSONDialect.needsNoEscape(name)
  }

  /// Whether the room's name, the member's name and its colour all go into JSON strings
  /// as they are (every colour of ``ChatHub/palette`` does).
  var stringsNeedNoJSONEscape: Bool { nameNeedsNoJSONEscape && cell.nameNeedsNoJSONEscape }

  /// This state with the given fields changed.
  func with(
    name: String? = nil, requestedName: String? = nil, announced: Bool? = nil, placement: Placement? = nil,
    brokerRoom: BrokerRoomHandle?? = nil
  ) -> HubMemberInfo {
    HubMemberInfo(
      name: name ?? self.name, requestedName: requestedName ?? self.requestedName, cell: cell,
      colorIndex: colorIndex, announced: announced ?? self.announced, shard: shard,
      placement: placement ?? self.placement, brokerRoom: brokerRoom ?? self.brokerRoom)
  }

  /// The room's cell when the member is (still) in `room`.
  func cell(ifIn room: String) -> HubRoomCell? { self.room == room ? cell : nil }
}
