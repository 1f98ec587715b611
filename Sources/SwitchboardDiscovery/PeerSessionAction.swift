import SwitchboardIO

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What the shell around a ``PeerSession`` must do.
public enum PeerSessionAction: Sendable, Hashable {
  /// Print that a peer appeared.
  case peerAppeared(PeerTable.Peer)
  /// Print that a peer's destination changed.
  case peerMoved(PeerTable.Peer)
  /// Print that a peer went away.
  case peerLeft(String)
  /// Print a datagram's text; `peer` is the sending peer's name when `sender` (the source
  /// address and port) is one of its addresses, else `nil`.
  case received(String, peer: String?, sender: SocketAddress)
  /// Send `bytes` as one datagram to each peer's ``PeerTable/Peer/destination``.
  case send([UInt8], to: [PeerTable.Peer])
  /// A line waits for a peer; `pending` lines are queued now.
  case queued(pending: Int)
  /// A line is not sent: too long, or dropped from a full queue.
  case refused(String, reason: String)
  /// Call ``PeerSession/timerFired(now:)`` at this time.
  case scheduleTimer(at: Deadline)
  /// Stop: send goodbyes and exit; `unsent` lines never found a peer.
  case finish(unsent: Int)

  /// The line `switchboard peer` prints on stdout for this action, or `nil` for the actions
  /// that print nothing there:
  /// ```
  /// + bob (10.231.10.2:40001)
  /// ~ bob ([fe80::1%eth0]:40001)
  /// - bob
  /// bob: hello
  /// 10.231.10.2:53211: hello from a socket no peer advertised
  /// ```
  /// - Parameter interfaceName: the name of an interface index, for scoped IPv6 addresses.
  public func outputLine(interfaceName: (UInt32) -> String = { "\($0)" }) -> String? {
    switch self {
    case .peerAppeared(let peer): "+ \(peer.name) (\(Self.text(peer.destination, interfaceName)))"
    case .peerMoved(let peer): "~ \(peer.name) (\(Self.text(peer.destination, interfaceName)))"
    case .peerLeft(let name): "- \(name)"
    case .received(let text, let peer, let sender): "\(peer ?? Self.text(sender, interfaceName)): \(text)"
    case .send, .queued, .refused, .scheduleTimer, .finish: nil
    }
  }

  /// `10.0.0.1:7000`, `[2001:db8::1]:7000`, `[fe80::1%eth0]:7000`.
  public static func text(_ address: SocketAddress, _ interfaceName: (UInt32) -> String = { "\($0)" })
    -> String
  {
    guard address.family == AF_INET6 else { return address.description }
    let scope = address.scope == 0 ? "" : "%" + interfaceName(address.scope)
    return "[\(address.ipAddress)\(scope)]:\(address.port)"
  }
}
