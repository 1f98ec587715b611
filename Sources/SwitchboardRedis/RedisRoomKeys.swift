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

  /// The room whose pub/sub ``channel`` is `channel` (its name percent-decoded), or `nil`
  /// when `channel` is not a room's channel. What arrives on a channel names its room this
  /// way, so the broker keeps one table of rooms rather than a second, channel → room, that
  /// could disagree with it.
  public static func room(channel: String) -> String? {
    let prefix = "sb:{".utf8
    let suffix = "}:ch".utf8
    let bytes = channel.utf8
    guard bytes.count >= prefix.count + suffix.count, bytes.starts(with: prefix),
      bytes.suffix(suffix.count).elementsEqual(suffix)
    else { return nil }
    let tag = bytes.dropFirst(prefix.count).dropLast(suffix.count)
    var out: [UInt8] = []
    out.reserveCapacity(tag.count)
    var index = tag.startIndex
    while index != tag.endIndex {
      let byte = tag[index]
      index = tag.index(after: index)
      guard byte == UInt8(ascii: "%") else {
        out.append(byte)
        continue
      }
      guard index != tag.endIndex, let high = hexValue(tag[index]) else { return nil }
      index = tag.index(after: index)
      guard index != tag.endIndex, let low = hexValue(tag[index]) else { return nil }
      index = tag.index(after: index)
      out.append(high << 4 | low)
    }
    return String(decoding: out, as: UTF8.self)
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }

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
