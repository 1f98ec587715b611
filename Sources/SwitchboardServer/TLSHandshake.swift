import SwitchboardIO
import SwitchboardTLS

/// The handshake of one connection accepted on a TLS port, run in the connection's loop
/// like everything else on it.
///
/// It listens to the ``SwitchboardTLS/TLSConnection`` until the handshake is done, then
/// starts the same session the plaintext port would (``LineSession``, or ``HTTPSession``
/// and from there ``WebSocketSession``) on ``SwitchboardTLS/ByteStream/tls(_:)``, which
/// becomes the connection's delegate and hears its plaintext directly: one descriptor,
/// no copy between the cipher and the session.
///
/// ```
/// client ⇄ TCP ⇄ TLSConnection ⇄ session (LineSession, HTTPSession…)
/// ```
///
/// A handshake that is not done after the configured timeout closes the connection
/// (slowloris); a failed one is counted and the connection closed. The connection counts
/// in ``TLSMetrics/open`` from here until it closes (``LoopContext/connectionClosed(_:)``
/// counts it out once a session owns it).
///
/// Loop-confined; keeps itself alive until the handshake ends either way.
final class TLSHandshake: TLSConnectionDelegate {
  private enum Phase {
    /// Waiting for the client's handshake; the timer closes it when late.
    case waiting(timer: Scheduled?)
    /// The handshake timed out (counted); the connection is closing.
    case timedOut
    /// Done: a session owns the connection.
    case handedOver
    /// Failed or closed before it was done (counted).
    case closed
  }

  private let tls: TLSConnection
  private unowned let context: LoopContext
  private let listener: String
  private let startSession: (ByteStream, LoopContext) -> Void
  private var phase: Phase
  private var keepAlive: TLSHandshake?

  /// Starts TLS on `tcp`; `startSession` gets the connection once the handshake is done.
  /// - Throws: ``SwitchboardTLS/TLSError`` when OpenSSL cannot make a session (out of memory).
  init(
    accepting tcp: TCPConnection, tlsContext: TLSContext, context: LoopContext, listener: String,
    startSession: @escaping (ByteStream, LoopContext) -> Void
  ) throws(TLSError) {
    tcp.limits.maximumBuffered = context.configuration.maxBufferedPerConnection
    self.tls = try TLSConnection(accepting: tcp, context: tlsContext)
    self.context = context
    self.listener = listener
    self.startSession = startSession
    self.phase = .waiting(timer: nil)
    context.metrics.tls.open.add(1, ordering: .relaxed)
    let timeout = context.configuration.tlsHandshakeTimeout
    let timer = context.loop.scheduleLocal(after: timeout) { [weak self] in
      guard let self, case .waiting = self.phase, !self.tls.isHandshakeComplete, !self.tls.isClosed else { return }
      self.phase = .timedOut
      self.context.metrics.tls.handshakesTimedOut.add(1, ordering: .relaxed)
      self.context.logger.info(
        "tls handshake timed out",
        metadata: .connection(peer: self.tls.remoteAddress, error: "no handshake after \(timeout)"))
      self.tls.close()
    }
    phase = .waiting(timer: timer)
    keepAlive = self
    tls.delegate = self
  }

  func connectionDidHandshake(_ connection: TLSConnection) {
    guard case .waiting(let timer) = phase else { return }
    timer?.cancel()
    phase = .handedOver
    context.metrics.tls.handshakesCompleted.add(1, ordering: .relaxed)
    context.logger.debug(
      "tls handshake done",
      metadata: [
        "peer": connection.remoteAddress?.description ?? "unknown", "listener": listener,
        "version": connection.session.protocolVersion ?? "?", "alpn": connection.negotiatedProtocol ?? "none",
      ])
    // The session attaches itself; plaintext that came with the last handshake message is
    // delivered to it right after this returns.
    startSession(.tls(connection), context)
    keepAlive = nil
  }

  /// Never called before the handshake is done, and the session is the delegate after it.
  func connection(_ connection: TLSConnection, didRead bytes: UnsafeRawBufferPointer) {}

  func connection(_ connection: TLSConnection, didCloseWith error: TLSError?) {
    switch phase {
    case .waiting(let timer):
      timer?.cancel()
      context.metrics.tls.handshakesFailed.add(1, ordering: .relaxed)
      if let error {
        context.logger.debug(
          "tls handshake failed", metadata: .connection(peer: connection.remoteAddress, error: "\(error)"))
      }
    case .timedOut:
      break
    case .handedOver, .closed:
      // The session's close counts the connection out.
      return
    }
    phase = .closed
    keepAlive = nil
    context.connectionClosed(.tls(connection))
  }
}
