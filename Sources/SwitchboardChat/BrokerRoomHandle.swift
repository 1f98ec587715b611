/// A broker's own object for one open room (``RoomSnapshot/brokerRoom``), handed back to
/// it with every publish to the room (``MessageDraft/brokerRoom``) so that it need not
/// look the room up by name per message. Opaque to the hub; a broker subclasses it (or
/// makes none, and the fields stay `nil`).
///
/// A class, not a protocol: an optional reference of a native class type is copied with
/// a plain retain, where an optional existential (`any AnyObject & Sendable`, or a class
/// protocol's) was copied through generic value witnesses in the publish path (~100
/// instructions a copy, two or three copies per message).
open class BrokerRoomHandle: @unchecked Sendable {
  // Safety: it has no state; a subclass is shared across threads as a broker's per-room
  // object and must be thread-safe itself (the local broker's holds only `let`s of
  // `Sendable` types and `Mutex`es).
  /// Makes a handle (a broker's subclass calls it from its own initialiser).
  public init() {}
}
