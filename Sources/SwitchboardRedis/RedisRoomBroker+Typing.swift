import SwitchboardChat
import SwitchboardWire

/// Typing across the cluster (docs/PROTOCOLS.md, "Typing"): an ephemeral announcement on
/// the room's channel, never written to the room's stream, shown by every other node with
/// the room open. The typing member's node runs its rate limit and expiry; the others only
/// show what it announces.
///
/// It travels as a presence announcement of the kind `typing`, as a disconnect order does
/// (RedisRoomBroker+Disconnect.swift): `sb1p <count> typing <node> <nameBytes> 0 1 <name><0|1>`,
/// published by the presence script with no entry changed (the path presence takes, sharded
/// on a cluster). A node that does not know the kind logs it as undecodable and ignores it.
extension RedisRoomBroker {
  /// The presence kind that carries a typing event.
  static let typingKind = "typing"

  /// Announces this node's member's typing event to the other nodes with the room open.
  public func relayTyping(_ event: TypingEvent) {
    guard event.author.utf8.count <= RedisBrokerPayload.Limits().maxNameBytes else { return }
    let tail =
      Array("\(Self.typingKind) \(configuration.nodeID) \(event.author.utf8.count) 0 1 ".utf8)
      + Array(event.author.utf8) + [event.active ? UInt8(ascii: "1") : UInt8(ascii: "0")]
    loop.execute { [self] in
      guard let client else { return }
      let keys = RedisRoomKeys(room: event.room)
      let arguments: [[UInt8]] = [
        [], [], Array("0".utf8), Array(String(ChatClock.milliseconds()).utf8), Array(keys.channel.utf8), tail,
      ]
      let script = connections.withLock { $0?.presence } ?? RedisBrokerScripts.presence
      client.eval(script, keys: [Array(keys.members.utf8)], arguments: arguments) { [self] result in
        if case .failure(let error) = result {
          configuration.logger.warning(
            "cannot announce typing", metadata: ["room": event.room, "error": "\(error)"])
        }
      }
    }
  }

  /// The typing event in a presence announcement of `room`, if it is one, and the node that
  /// sent it. A pure decoder with limits: the bytes come from Redis.
  public static func decodeTyping(_ bytes: [UInt8], room: String) -> (event: TypingEvent, node: String)? {
    var rest = bytes[...]
    func token() -> String? {
      guard let space = rest.firstIndex(of: UInt8(ascii: " ")), space - rest.startIndex <= 256 else {
        return nil
      }
      defer { rest = rest[(space + 1)...] }
      return String(decoding: rest[..<space], as: UTF8.self)
    }
    let maxName = RedisBrokerPayload.Limits().maxNameBytes
    guard token() == RedisBrokerPayload.presenceVersion, token().flatMap({ UInt64($0) }) != nil,
      token() == typingKind,
      let node = token(), !node.isEmpty, let nameBytes = token().flatMap({ Int($0) }),
      (1...maxName).contains(nameBytes), token() == "0", token() == "1", rest.count == nameBytes + 1
    else { return nil }
    let active: Bool
    switch rest.last {
    case UInt8(ascii: "1"): active = true
    case UInt8(ascii: "0"): active = false
    default: return nil
    }
    let author = String(decoding: rest.prefix(nameBytes), as: UTF8.self)
    return (TypingEvent(room: room, author: author, active: active), node)
  }
}
