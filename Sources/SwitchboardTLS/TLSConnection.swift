import SwitchboardIO

/// TLS over a ``SwitchboardIO/TCPConnection`` on its event loop, presented like a
/// `TCPConnection`: a delegate hears plaintext, EOF and close, and ``write(_:)-([UInt8])``
/// takes plaintext.
///
/// Clients use ``connect(to:serverName:configuration:on:completion:)``, which completes
/// after the TCP connect and a verified handshake. Servers wrap each accepted
/// `TCPConnection` with ``init(accepting:context:)``.
///
/// Like a `TCPConnection`, an open connection keeps itself alive (until it closes), and
/// every method must be called on ``loop``.
public final class TLSConnection {
  /// The connection's life, in one value: EOF is reported only while open, and once.
  private enum Phase {
    case handshaking
    /// Handshake done. `reportedEOF`: the peer's `close_notify` was reported
    /// (``TLSConnectionDelegate/connectionDidReadEOF(_:)``, once); writes still go out.
    case open(reportedEOF: Bool)
    /// Waiting for the TCP connection to finish closing; the error to report, if any.
    case closing(TLSError?)
    case closed

    var isOpen: Bool {
      if case .open = self { return true }
      return false
    }
  }

  /// The TCP connection underneath (for its address, limits and descriptor; do not
  /// write to it or change its delegate).
  public let tcp: TCPConnection
  /// The TLS state machine (for ALPN, version and peer key facts).
  public let session: TLSSession
  /// Receives plaintext and state changes. Weak — whoever sets it keeps it alive — unlike
  /// `TCPConnection.delegate`, which the connection holds until it closes.
  public weak var delegate: TLSConnectionDelegate?

  private var phase = Phase.handshaking
  private var connectCompletion: ((Result<TLSConnection, TLSError>) -> Void)?
  /// Hears the TCP connection's events (and holds this connection weakly).
  private let events = TCPEvents()
  /// Set while the connection is open, so it lives as long as its TCP connection.
  private var keepAlive: TLSConnection?

  /// The loop that owns the connection.
  public var loop: EventLoop { tcp.loop }
  /// The peer's address, when known.
  public var remoteAddress: SocketAddress? { tcp.remoteAddress }
  /// `false` while the TCP connection's output is above its high-water mark.
  public var isWritable: Bool { tcp.isWritable }
  /// `true` once the connection is closed (no more callbacks, writes are dropped).
  public var isClosed: Bool {
    if case .closed = phase { return true }
    return false
  }
  /// `true` once the handshake completed and passed every check.
  public var isHandshakeComplete: Bool { session.isHandshakeComplete }
  /// The ALPN protocol agreed on, if any.
  public var negotiatedProtocol: String? { session.negotiatedProtocol }

  private init(tcp: TCPConnection, session: TLSSession) {
    tcp.loop.assertInEventLoop()
    self.tcp = tcp
    self.session = session
    events.owner = self
    tcp.delegate = events
    keepAlive = self
  }

  /// Starts the server side of TLS on an accepted connection; the handshake runs as the
  /// client's bytes arrive. Set ``delegate`` right away: it hears
  /// ``TLSConnectionDelegate/connectionDidHandshake(_:)`` and, on failure, `didCloseWith`
  /// the handshake error. Writes before the handshake are sent after it. Must run on
  /// the connection's loop.
  /// - Parameters:
  ///   - tcp: a connection nobody else is reading from; this takes over its delegate.
  ///   - context: a server context (``TLSContext/init(serverConfiguration:)``), shared
  ///     by all connections.
  /// - Throws: ``TLSError/invalidConfiguration`` for a client context.
  public convenience init(accepting tcp: TCPConnection, context: TLSContext) throws(TLSError) {
    guard context.isServer else {
      throw .invalidConfiguration("accepting needs a server context (TLSContext(serverConfiguration:))")
    }
    self.init(tcp: tcp, session: try TLSSession(context: context))
  }

  /// Like ``init(accepting:context:)`` but loads `configuration`'s files for this one
  /// connection. A server with many connections should make one ``TLSContext`` instead.
  /// - Throws: ``TLSError/invalidConfiguration`` when the certificate or key is unusable.
  public convenience init(accepting tcp: TCPConnection, configuration: TLSServerConfiguration)
    throws(TLSError)
  {
    try self.init(accepting: tcp, context: TLSContext(serverConfiguration: configuration))
  }

  /// Connects to `address` and runs a client handshake. The completion gets the
  /// connection once the handshake is done and verified (set its delegate inside the
  /// completion: plaintext the server sent along is delivered right after), or the
  /// error: ``TLSError/connectFailed`` (with the `IOError`),
  /// ``TLSError/certificateVerifyFailed`` (with OpenSSL's reason, such as
  /// `"self-signed certificate"` or `"hostname mismatch"`), ``TLSError/pinMismatch``,
  /// ``TLSError/handshakeFailed``. It is called exactly once, on `loop`.
  ///
  /// There is no timeout: a server that never answers leaves the handshake pending.
  /// Callers schedule their own and ``close()`` (or drop) a connection that is late.
  /// - Parameters:
  ///   - address: the server's address.
  ///   - serverName: the name to send as SNI and verify; `nil` takes the context's
  ///     ``TLSConfiguration/serverName``.
  ///   - context: a client context (``TLSContext/init(configuration:)``).
  ///   - loop: must be the current loop.
  ///   - completion: the connection once its handshake is done, or the error.
  public static func connect(
    to address: SocketAddress, serverName: String? = nil, context: TLSContext, on loop: EventLoop,
    completion: @escaping (Result<TLSConnection, TLSError>) -> Void
  ) {
    loop.assertInEventLoop()
    guard !context.isServer else {
      completion(
        .failure(.invalidConfiguration("connect needs a client context (TLSContext(configuration:))")))
      return
    }
    let session: TLSSession
    do {
      session = try TLSSession(context: context, serverName: serverName)
    } catch {
      completion(.failure(error))
      return
    }
    TCPConnection.connect(to: address, on: loop) { result in
      switch result {
      case .failure(let error):
        completion(.failure(.connectFailed(error)))
      case .success(let tcp):
        let connection = TLSConnection(tcp: tcp, session: session)
        connection.connectCompletion = completion
        connection.advanceHandshake()
      }
    }
  }

  /// Like ``connect(to:serverName:context:on:completion:)``, making a context from
  /// `configuration` for this one connection (loading the system trust store each time;
  /// keep a ``TLSContext`` when connecting often).
  public static func connect(
    to address: SocketAddress, serverName: String? = nil, configuration: TLSConfiguration, on loop: EventLoop,
    completion: @escaping (Result<TLSConnection, TLSError>) -> Void
  ) {
    let context: TLSContext
    do {
      context = try TLSContext(configuration: configuration)
    } catch {
      loop.assertInEventLoop()
      completion(.failure(error))
      return
    }
    connect(to: address, serverName: serverName, context: context, on: loop, completion: completion)
  }

  // MARK: Writing and closing

  /// Encrypts and queues `bytes`. Before the handshake completes they wait for it;
  /// after ``close()`` they are dropped.
  public func write(_ bytes: UnsafeRawBufferPointer) {
    switch phase {
    case .handshaking, .open: break
    case .closing, .closed: return
    }
    // After ``shutdownOutput()``: nothing more may follow the `close_notify`.
    guard !session.isOutputClosed else { return }
    do {
      try session.writePlaintext(bytes)
    } catch {
      fail(error)
      return
    }
    flushCiphertext()
  }

  /// Encrypts and queues `bytes`.
  public func write(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { write($0) }
  }

  /// Encrypts and queues the UTF-8 of `string`.
  public func write(string: String) {
    var string = string
    string.withUTF8 { write(UnsafeRawBufferPointer($0)) }
  }

  /// Sends `close_notify` and closes the TCP connection once queued output is flushed.
  /// The delegate then hears `didCloseWith(nil)`. Before the handshake completes it just
  /// closes (a pending `connect` completes with ``TLSError/handshakeFailed``).
  public func close() {
    switch phase {
    case .handshaking, .open: break
    case .closing, .closed: return
    }
    session.close()
    flushCiphertext()
    phase = .closing(nil)
    tcp.close()
  }

  /// Sends `close_notify` after queued output, then shuts down the TCP connection's
  /// sending side (a half-close): the peer learns nothing more comes while its own bytes
  /// are still read, so a close with unread input does not make the kernel reset the
  /// connection under replies in flight. Later writes are dropped; ``close()`` ends it.
  public func shutdownOutput() {
    guard case .open = phase else { return }
    session.close()
    flushCiphertext()
    tcp.shutdownOutput()
  }

  // MARK: Driving the session

  private func flushCiphertext() {
    while let bytes = session.takeCiphertext() {
      tcp.write(bytes)
    }
  }

  private func fail(_ error: TLSError) {
    switch phase {
    case .handshaking, .open: break
    case .closing, .closed: return
    }
    // What OpenSSL queued (an alert telling the peer why) still goes out first.
    flushCiphertext()
    phase = .closing(error)
    tcp.close()
  }

  private func advanceHandshake() {
    switch session.handshake() {
    case .wantIO:
      flushCiphertext()
    case .failed(let error):
      fail(error)
    case .done:
      flushCiphertext()
      phase = .open(reportedEOF: false)
      if let completion = connectCompletion {
        connectCompletion = nil
        completion(.success(self))
      }
      if phase.isOpen { delegate?.connectionDidHandshake(self) }
      // Application data may have come in the same read as the last handshake message.
      deliverPlaintext()
    }
  }

  private func deliverPlaintext() {
    guard phase.isOpen else { return }
    do {
      try session.readPlaintext { bytes in
        // Like TCPConnection: after close() no more reads are reported.
        guard phase.isOpen else { return }
        delegate?.connection(self, didRead: bytes)
      }
    } catch {
      fail(error)
      return
    }
    flushCiphertext()
    if session.receivedCloseNotify, case .open(reportedEOF: false) = phase {
      phase = .open(reportedEOF: true)
      if let delegate { delegate.connectionDidReadEOF(self) } else { close() }
    }
  }

  // MARK: TCP events

  fileprivate func tcpDidRead(_ bytes: UnsafeRawBufferPointer) {
    switch phase {
    case .handshaking:
      session.feedCiphertext(bytes)
      advanceHandshake()
    case .open:
      session.feedCiphertext(bytes)
      deliverPlaintext()
    case .closing, .closed:
      return
    }
  }

  fileprivate func tcpDidReadEOF() {
    switch phase {
    case .handshaking:
      fail(.handshakeFailed("the peer closed the connection during the handshake"))
    case .open:
      // After close_notify the peer's FIN is expected; we may still write (half-close).
      if !session.receivedCloseNotify {
        fail(.unexpectedEOF("the peer closed TCP without close_notify; data may be truncated"))
      }
    case .closing, .closed:
      return
    }
  }

  fileprivate func tcpWritabilityChanged(_ writable: Bool) {
    guard phase.isOpen else { return }
    delegate?.connection(self, writabilityChanged: writable)
  }

  fileprivate func tcpIsTooSlow() {
    guard phase.isOpen else { return }
    delegate?.connectionIsTooSlow(self)
  }

  fileprivate func tcpDidClose(_ ioError: IOError?) {
    let error: TLSError?
    switch phase {
    case .closed:
      return
    case .closing(let reason):
      error = reason ?? ioError.map(TLSError.connectionFailed)
    case .handshaking:
      error =
        ioError.map(TLSError.connectionFailed)
        ?? .handshakeFailed("the connection closed during the handshake")
    case .open:
      error =
        ioError.map(TLSError.connectionFailed)
        ?? (session.receivedCloseNotify ? nil : .unexpectedEOF("the connection closed without close_notify"))
    }
    phase = .closed
    let delegate = self.delegate
    self.delegate = nil
    if let completion = connectCompletion {
      connectCompletion = nil
      completion(.failure(error ?? .handshakeFailed("the connection was closed during the handshake")))
    } else {
      delegate?.connection(self, didCloseWith: error)
    }
    keepAlive = nil
  }
}

@available(*, unavailable)
extension TLSConnection: Sendable {}

/// Receives the TCP connection's events for a ``TLSConnection``; a separate object so
/// the TCP delegate methods are not part of `TLSConnection`'s API.
private final class TCPEvents: TCPConnectionDelegate {
  weak var owner: TLSConnection?

  func connection(_ connection: TCPConnection, didRead bytes: UnsafeRawBufferPointer) {
    owner?.tcpDidRead(bytes)
  }
  func connectionDidReadEOF(_ connection: TCPConnection) {
    if let owner { owner.tcpDidReadEOF() } else { connection.close() }
  }
  func connection(_ connection: TCPConnection, writabilityChanged writable: Bool) {
    owner?.tcpWritabilityChanged(writable)
  }
  func connection(_ connection: TCPConnection, didCloseWith error: IOError?) {
    owner?.tcpDidClose(error)
  }
  /// No farewell under TLS (see ``TLSConnectionDelegate/connectionIsTooSlow(_:)``): the
  /// TCP connection resets at once.
  func connectionIsTooSlow(_ connection: TCPConnection) -> SharedBytes? {
    owner?.tcpIsTooSlow()
    return nil
  }
}
