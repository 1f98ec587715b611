import SwitchboardChat
import SwitchboardRESP

/// The server API's disconnect across the cluster (docs/API.md): an order on the room's
/// channel that every node with the room open carries out for its own members.
///
/// The order travels as a presence announcement of the kind `disconnect`, published by the
/// presence script with no entry changed (so it takes the same path as presence, sharded on
/// a cluster): `sb1p <count> disconnect <node> <nameBytes> 0 <reasonBytes> <name><reason>`.
/// A node that does not know the kind logs it as undecodable and ignores it.
extension RedisRoomBroker {
  /// The presence kind that carries a disconnect order.
  static let disconnectKind = "disconnect"
  /// The longest name or reason an order carries, in bytes.
  public static let maxDisconnectField = 1024

  /// Tells every other node with `room` open to disconnect its members called `name`.
  public func disconnect(name: String, room: String, reason: String) {
    guard name.utf8.count <= Self.maxDisconnectField, reason.utf8.count <= Self.maxDisconnectField else { return }
    loop.execute { [self] in
      guard let client else { return }
      let keys = RedisRoomKeys(room: room)
      var tail = Array("\(Self.disconnectKind) \(configuration.nodeID) \(name.utf8.count) 0 \(reason.utf8.count) ".utf8)
      tail += Array(name.utf8) + Array(reason.utf8)
      let arguments: [[UInt8]] = [
        [], [], Array("0".utf8), Array(String(ChatClock.milliseconds()).utf8), Array(keys.channel.utf8), tail,
      ]
      let script = connections.withLock { $0?.presence } ?? RedisBrokerScripts.presence
      client.eval(script, keys: [Array(keys.members.utf8)], arguments: arguments) { [self] result in
        if case .failure(let error) = result {
          configuration.logger.warning("cannot send a disconnect order", metadata: ["room": room, "error": "\(error)"])
        }
      }
    }
  }

  /// The order in a presence announcement, if it is one: the node that sent it, the name
  /// and the reason.
  public static func decodeDisconnect(_ bytes: [UInt8]) -> (node: String, name: String, reason: String)? {
    var rest = bytes[...]
    func token() -> String? {
      guard let space = rest.firstIndex(of: UInt8(ascii: " ")), space - rest.startIndex <= 256 else { return nil }
      defer { rest = rest[(space + 1)...] }
      return String(decoding: rest[..<space], as: UTF8.self)
    }
    guard token() == RedisBrokerPayload.presenceVersion, token().flatMap({ Int($0) }) != nil,
      token() == disconnectKind, let node = token(), let nameBytes = token().flatMap({ Int($0) }),
      token() == "0", let reasonBytes = token().flatMap({ Int($0) }),
      (0...maxDisconnectField).contains(nameBytes), (0...maxDisconnectField).contains(reasonBytes),
      rest.count == nameBytes + reasonBytes
    else { return nil }
    let name = String(decoding: rest.prefix(nameBytes), as: UTF8.self)
    let reason = String(decoding: rest.dropFirst(nameBytes), as: UTF8.self)
    return (node, name, reason)
  }
}
