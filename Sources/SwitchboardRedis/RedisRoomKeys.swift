/// The Redis names of one room: every key carries the room in a `{…}` hash tag, so all
/// of a room's keys live in one Redis Cluster slot and one script can touch them.
///
/// The room name is percent-encoded inside the tag: bytes outside `A–Z a–z 0–9 . _ -`
/// become `%XX` (upper-case hex), so `{`, `}`, `:`, spaces and non-ASCII letters can
/// neither end the tag early nor make two rooms share a key.
///
/// | name | type | holds |
/// |---|---|---|
/// | `sb:{room}:meta` | hash | `epoch`, `last` (the last id assigned) |
/// | `sb:{room}:log` | stream | the kept messages, entry id `<id>-0` |
/// | `sb:{room}:ch` | pub/sub channel | the live payloads |
/// | `sb:{room}:members` | sorted set | presence, scored by expiry (ms) |
/// | `sb:{room}:ref:<ref>` | string | `<id>:<epoch>` of the first publish with that key (idempotency) |
public struct RedisRoomKeys: Sendable, Hashable {
  /// The room as written inside the hash tag.
  public let tag: String

  /// The names of `room`.
  public init(room: String) {
    tag = "sb:{" + Self.encode(room) + "}"
  }

  /// The meta hash.
  public var meta: String { tag + ":meta" }
  /// The message stream.
  public var log: String { tag + ":log" }
  /// The pub/sub channel.
  public var channel: String { tag + ":ch" }
  /// The presence sorted set.
  public var members: String { tag + ":members" }
  /// The idempotency key of a publish `ref`.
  public func ref(_ ref: String) -> String { tag + ":ref:" + ref }

  /// `room` percent-encoded (see the type's description).
  public static func encode(_ room: String) -> String {
    let hex = Array("0123456789ABCDEF".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(room.utf8.count)
    for byte in room.utf8 {
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
        out.append(byte)
      default:
        out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
      }
    }
    return String(decoding: out, as: UTF8.self)
  }
}
