import SwitchboardIO
import SwitchboardLog

extension ServerCore {
  /// Counts a newly accepted connection against the connection caps. Over a cap it is
  /// answered and closed (``RefusedConnection``) and `false` returned: the caller builds no
  /// session. An admitted connection must be given to ``connectionClosed(_:)`` when it
  /// closes (the sessions do that in `didCloseWith`).
  func admit(_ connection: TCPConnection, on listener: RefusedConnection.Listener, loop: EventLoop) -> Bool {
    let message: String
    switch connections.admit(ObjectIdentifier(connection), ip: connection.remoteAddress?.ipAddress ?? "") {
    case .admitted:
      return true
    case .overTotal(let limit):
      metrics.limits.refusedTotal.add(1, ordering: .relaxed)
      message = "too many connections (this server takes \(limit))"
    case .overPerIP(let limit):
      metrics.limits.refusedPerIP.add(1, ordering: .relaxed)
      message = "too many connections (\(limit) per address)"
    }
    if let suppressed = refusalLog.withLock({ $0.admit(now: Deadline.now().nanoseconds) }) {
      var metadata = Log.Metadata.connection(peer: connection.remoteAddress, error: message)
      if suppressed > 0 { metadata["suppressed"] = "\(suppressed)" }
      logger.notice("refused a connection", metadata: metadata)
    } else {
      metrics.limits.refusedLogLinesSuppressed.add(1, ordering: .relaxed)
    }
    RefusedConnection.start(connection, on: listener, message: message, loop: loop, metrics: metrics.limits)
    return false
  }

  /// Counts an admitted connection out of the caps (a connection that was not admitted
  /// itself, like the plaintext side of a TLS session, counts nothing).
  func connectionClosed(_ connection: TCPConnection) {
    connections.release(ObjectIdentifier(connection), ip: connection.remoteAddress?.ipAddress ?? "")
  }

  /// The same, by the identity and address of a connection the caller no longer holds.
  func connectionClosed(id: ObjectIdentifier, ip: String) {
    connections.release(id, ip: ip)
  }
}
