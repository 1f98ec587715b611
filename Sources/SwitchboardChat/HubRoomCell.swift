import SwitchboardWire
import Synchronization

/// One room of the hub with its own lock: the object a member's record points at, so
/// publishes and deliveries to two rooms never take the same lock in the hub.
///
/// The room table (``ChatHub``'s directory) maps names to cells and is touched only on
/// join, leave, rename and the idle close; a cell dropped by the idle close is marked
/// ``HubRoom/Phase/closed``, so a caller that still holds it finds nothing there.
final class HubRoomCell: Sendable {
  /// The room's name.
  let name: String
  /// The room's state: members, names in use, ring, loading queue, idle mark.
  let state: Mutex<HubRoom>
  /// Whether ``name`` goes into a JSON string as it is (``JSONDialect/needsNoEscape(_:)``),
  /// asked once for every message of the room.
  let nameNeedsNoJSONEscape: Bool

  init(name: String, capacity: Int) {
    self.name = name
    state = Mutex(HubRoom(capacity: capacity))
    nameNeedsNoJSONEscape = JSONDialect.needsNoEscape(name)
  }
}
