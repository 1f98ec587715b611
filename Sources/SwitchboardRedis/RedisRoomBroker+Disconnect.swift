import Dispatch
import SwitchboardChat
import SwitchboardRESP
import Synchronization

/// The server API's disconnect across the cluster (docs/API.md): an order that every node
/// carries out for its own members — on the room's channel (every node with the room open),
/// or, without a room, on the control channel every node subscribes to.
///
/// The order travels as a presence announcement of the kind `disconnect`:
/// `sb1p <count> disconnect <node> <nameBytes> 0 <reasonBytes> <name><reason>`. In a room it
/// is published by the presence script with no entry changed (so it takes the same path as
/// presence, sharded on a cluster); without a room it is published with a count of 0 on
/// ``controlChannel``. A node that does not know the kind logs it as undecodable and
/// ignores it.
extension RedisRoomBroker {
  /// The presence kind that carries a disconnect order.
  static let disconnectKind = "disconnect"
  /// The longest name or reason an order carries, in bytes.
  public static let maxDisconnectField = 1024

  /// The channel of orders for every node, whatever rooms it has open: a classic channel on
  /// one server, a shard channel on a cluster (every node subscribes to it in its slot, as to
  /// a room's channel). Not a room's channel (``RedisRoomKeys/room(channel:)`` is `nil`).
  static let controlChannel = "sb:control"

  /// Tells every other node with `room` open, or without a room every other node, to
  /// disconnect its members called `name` (in `room` only, when given).
  public func disconnect(name: String, room: String?, reason: String) {
    guard name.utf8.count <= Self.maxDisconnectField, reason.utf8.count <= Self.maxDisconnectField else { return }
    loop.execute { [self] in
      guard let client else { return }
      let tail = disconnectTail(name: name, reason: reason)
      guard let room else {
        let isCluster = connections.withLock { $0?.isCluster } ?? false
        let command = RESPCommand(bytes: [
          Array((isCluster ? "SPUBLISH" : "PUBLISH").utf8), Array(Self.controlChannel.utf8),
          Array("\(RedisBrokerPayload.presenceVersion) 0 ".utf8) + tail,
        ])
        return client.send(command) { [self] result in
          if case .failure(let error) = result {
            configuration.logger.warning("cannot send a disconnect order", metadata: ["error": "\(error)"])
          }
        }
      }
      let keys = RedisRoomKeys(room: room)
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

  /// An order's bytes after the member count: `disconnect <node> <nameBytes> 0 <reasonBytes> <name><reason>`.
  private func disconnectTail(name: String, reason: String) -> [UInt8] {
    Array("\(Self.disconnectKind) \(configuration.nodeID) \(name.utf8.count) 0 \(reason.utf8.count) ".utf8)
      + Array(name.utf8) + Array(reason.utf8)
  }

  /// An order on ``controlChannel``: carried out here unless this node sent it.
  func receivedControl(_ message: RedisPubSubMessage) {
    guard let order = Self.decodeDisconnect(message.payload) else {
      return configuration.logger.warning("undecodable order on \(message.channel) ignored")
    }
    guard order.node != configuration.nodeID, let sink = state.withLock({ $0.sink }) else { return }
    sink.remoteDisconnect(name: order.name, room: nil, reason: order.reason)
  }

  /// Subscribes to ``controlChannel``, waiting up to the connect timeout (the pub/sub
  /// connection subscribes again by itself after a reconnect). Blocks the calling thread:
  /// at start only.
  func subscribeControl(_ subscriber: any RedisBrokerChannels) {
    let done = DispatchSemaphore(value: 0)
    let failure = Mutex<RedisError?>(nil)
    Task {
      do throws(RedisError) {
        try await subscriber.subscribe([Self.controlChannel])
      } catch {
        failure.withLock { $0 = error }
      }
      done.signal()
    }
    let wait = configuration.redis.connectTimeout
    let seconds = Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18
    let timedOut = done.wait(timeout: .now() + seconds) == .timedOut
    if let error = failure.withLock({ $0 }) {
      configuration.logger.warning("cannot subscribe to the control channel", metadata: ["error": "\(error)"])
    } else if timedOut {
      configuration.logger.warning("no answer subscribing to the control channel within \(wait)")
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
