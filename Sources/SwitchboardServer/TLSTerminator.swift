import SwitchboardIO
import SwitchboardTLS

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// TLS termination for one accepted connection on a TLS port, inside the server.
///
/// The handshake runs over the accepted socket; once it is done the terminator makes a
/// connected pair of Unix stream sockets and hands one end, as a plain `TCPConnection`
/// carrying the client's real address, to the same session the plaintext port would
/// start (``LineSession``, or ``HTTPSession`` and from there ``WebSocketSession``). It
/// then copies plaintext both ways: decrypted bytes into the pair, the session's output
/// out through TLS. The sessions therefore need no TLS code at all, and everything they
/// do (limits, timers, goodbyes) works unchanged over TLS.
///
/// ```
/// client ⇄ TCP ⇄ TLSConnection ⇄ terminator ⇄ socketpair ⇄ session (LineSession, HTTPSession…)
/// ```
///
/// Closing either side closes the other: the session closing its end sends
/// `close_notify`; the client's `close_notify` is passed on as EOF; a dropped TCP
/// connection closes the session's end. A handshake that is not done after the
/// configured timeout closes the connection (slowloris). Output to a slow client piles
/// up on the outer TCP connection, whose `maximumBuffered` is the server's
/// `maxBufferedPerConnection`: past it the connection is dropped, as on a plain port.
///
/// Loop-confined; keeps itself alive until both sides are closed.
final class TLSTerminator: TLSConnectionDelegate, TCPConnectionDelegate {
  private enum Phase {
    /// Waiting for the client's handshake; the timer closes it when late.
    case handshaking(timer: Scheduled?)
    /// The handshake timed out (counted); the connection is closing.
    case timedOut
    /// Copying plaintext between the TLS connection and our end of the pair.
    case open(pair: TCPConnection)
    case closed
  }

  private let tls: TLSConnection
  private unowned let context: LoopContext
  private let listener: String
  private let startSession: (TCPConnection, LoopContext) -> Void
  private var phase: Phase
  private var keepAlive: TLSTerminator?
  /// The encrypted connection and its peer's address, as admitted by the connection caps
  /// (counted out at its close).
  private let admission: (id: ObjectIdentifier, ip: String)

  /// Starts TLS on `tcp`; `startSession` gets the plaintext end once the handshake is done.
  /// - Throws: ``TLSError`` when OpenSSL cannot make a session (out of memory).
  init(
    accepting tcp: TCPConnection, tlsContext: TLSContext, context: LoopContext, listener: String,
    startSession: @escaping (TCPConnection, LoopContext) -> Void
  ) throws(TLSError) {
    tcp.limits.maximumBuffered = context.configuration.maxBufferedPerConnection
    self.tls = try TLSConnection(accepting: tcp, context: tlsContext)
    self.admission = (ObjectIdentifier(tcp), tcp.remoteAddress?.ipAddress ?? "")
    self.context = context
    self.listener = listener
    self.startSession = startSession
    self.phase = .handshaking(timer: nil)
    context.metrics.tls.open.add(1, ordering: .relaxed)
    let timeout = context.configuration.tlsHandshakeTimeout
    let timer = context.loop.scheduleLocal(after: timeout) { [weak self] in
      guard let self, case .handshaking = self.phase, !self.tls.isHandshakeComplete, !self.tls.isClosed else { return }
      self.phase = .timedOut
      self.context.metrics.tls.handshakesTimedOut.add(1, ordering: .relaxed)
      self.context.logger.info(
        "tls handshake timed out",
        metadata: .connection(peer: self.tls.remoteAddress, error: "no handshake after \(timeout)"))
      self.tls.close()
    }
    phase = .handshaking(timer: timer)
    keepAlive = self
    tls.delegate = self
  }

  // MARK: The TLS side

  func connectionDidHandshake(_ connection: TLSConnection) {
    guard case .handshaking(let timer) = phase else { return }
    timer?.cancel()
    context.metrics.tls.handshakesCompleted.add(1, ordering: .relaxed)
    let ours: TCPConnection
    let theirs: TCPConnection
    do {
      (ours, theirs) = try makePair(peer: connection.remoteAddress)
    } catch {
      context.logger.warning(
        "cannot start a TLS session", metadata: .connection(peer: connection.remoteAddress, error: "\(error)"))
      phase = .closed
      connection.close()
      return
    }
    ours.limits.maximumBuffered = context.configuration.maxBufferedPerConnection
    ours.delegate = self
    phase = .open(pair: ours)
    context.logger.debug(
      "tls handshake done",
      metadata: [
        "peer": connection.remoteAddress?.description ?? "unknown", "listener": listener,
        "version": connection.session.protocolVersion ?? "?", "alpn": connection.negotiatedProtocol ?? "none",
      ])
    startSession(theirs, context)
  }

  func connection(_ connection: TLSConnection, didRead bytes: UnsafeRawBufferPointer) {
    guard case .open(let pair) = phase else { return }
    pair.write(Array(bytes))
  }

  func connectionDidReadEOF(_ connection: TLSConnection) {
    // close_notify: the client sends nothing more; the session sees EOF and decides.
    guard case .open(let pair) = phase else {
      connection.close()
      return
    }
    pair.shutdownOutput()
  }

  func connection(_ connection: TLSConnection, didCloseWith error: TLSError?) {
    switch phase {
    case .handshaking(let timer):
      timer?.cancel()
      context.metrics.tls.handshakesFailed.add(1, ordering: .relaxed)
      if let error {
        context.logger.debug(
          "tls handshake failed", metadata: .connection(peer: connection.remoteAddress, error: "\(error)"))
      }
    case .open(let pair):
      pair.close()
    case .closed, .timedOut:
      break
    }
    phase = .closed
    keepAlive = nil
    context.metrics.tls.open.subtract(1, ordering: .relaxed)
    context.core.connectionClosed(id: admission.id, ip: admission.ip)
  }

  // MARK: The session side (our end of the pair)

  func connection(_ connection: TCPConnection, didRead bytes: UnsafeRawBufferPointer) {
    tls.write(bytes)
  }

  func connectionDidReadEOF(_ connection: TCPConnection) {
    tls.close()
  }

  func connection(_ connection: TCPConnection, didCloseWith error: IOError?) {
    tls.close()
  }

  // MARK: The pair

  private func makePair(peer: SocketAddress?) throws(IOError) -> (TCPConnection, TCPConnection) {
    var fds: [Int32] = [-1, -1]
    #if canImport(Glibc)
      let type = Int32(SOCK_STREAM.rawValue)
    #else
      let type = SOCK_STREAM
    #endif
    guard socketpair(AF_UNIX, type, 0, &fds) == 0 else { throw IOError(call: "socketpair", errno: errno) }
    for fd in fds {
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }
    let ours: TCPConnection
    do {
      ours = try TCPConnection(fd: fds[0], loop: context.loop, remoteAddress: peer)
    } catch {
      _ = close(fds[1])
      throw error
    }
    do {
      return (ours, try TCPConnection(fd: fds[1], loop: context.loop, remoteAddress: peer))
    } catch {
      ours.close()
      throw error
    }
  }
}
