import SwitchboardIO
import SwitchboardTLS
import Testing
import SwitchboardTestSupport

/// `ByteStream` over real sockets: one delegate hears a plaintext and an encrypted stream
/// the same way (bytes, EOF, close and why), and identity tells streams apart.
@Suite(.onTestThreads, .serialized, .enabled(ifAvailable: TLSSupport.isAvailable, "needs TLS (TLSSupport)"))
struct ByteStreamTests {
  enum Kind: String, CaseIterable, Sendable { case tcp, tls }

  /// What one stream reported, readable from any thread.
  final class StreamLog: Sendable {
    struct State: Sendable {
      var received: [UInt8] = []
      var eofCount = 0
      var closed = false
      var closeError: String?
      var closeErrorWasTLS = false
    }
    let state = Locked(State())
  }

  /// One delegate for either kind of stream; keeps itself alive until the stream closes
  /// (a TLS connection holds its delegate weakly).
  final class Recorder: ByteStreamDelegate {
    let log: StreamLog
    private var keepAlive: Recorder?

    init(log: StreamLog) {
      self.log = log
      keepAlive = self
    }

    func stream(_ stream: ByteStream, didRead bytes: UnsafeRawBufferPointer) {
      log.state.withLock { $0.received.append(contentsOf: bytes) }
    }

    func streamDidReadEOF(_ stream: ByteStream) {
      log.state.withLock { $0.eofCount += 1 }
      stream.close()
    }

    func stream(_ stream: ByteStream, didCloseWith error: ByteStreamError?) {
      log.state.withLock {
        $0.closed = true
        $0.closeError = error?.description
        if case .tls? = error { $0.closeErrorWasTLS = true }
      }
      keepAlive = nil
    }
  }

  /// Echoes plaintext TCP on 127.0.0.1 (port 0) until the client ends, then closes.
  final class TCPEchoServer: Sendable {
    final class Echo: TCPConnectionDelegate {
      func connection(_ connection: TCPConnection, didRead bytes: UnsafeRawBufferPointer) {
        connection.write(SharedBytes(copying: bytes))
      }
      func connection(_ connection: TCPConnection, didCloseWith error: IOError?) {}
    }

    let address: SocketAddress
    private let listener: LoopBound<TCPListener>

    init(loop: EventLoop) throws {
      let bind = try SocketAddress(host: "127.0.0.1", port: 0)
      listener = try onLoop(loop) {
        let listener = try TCPListener(address: bind, loop: loop) { fd, peer in
          if let tcp = try? TCPConnection(fd: fd, loop: loop, remoteAddress: peer) { tcp.delegate = Echo() }
        }
        return LoopBound(listener, on: loop)
      }
      address = try onLoop(loop) { [listener] in listener.value.localAddress }
    }

    func close() {
      let listener = self.listener
      _ = try? onLoop(listener.loop) { listener.value.close() }
    }
  }

  /// Connects a stream of `kind` to `address` on `loop` and attaches a ``Recorder``.
  private func connect(
    _ kind: Kind, to address: SocketAddress, pki: TestPKI, on loop: EventLoop
  ) throws -> (LoopBound<Box>, StreamLog) {
    let log = StreamLog()
    let outcome = Locked<LoopBound<Box>?>(nil)
    let failure = Locked<String?>(nil)
    loop.execute {
      let done: (ByteStream) -> Void = { stream in
        stream.attach(Recorder(log: log))
        outcome.withLock { $0 = LoopBound(Box(stream), on: loop) }
      }
      switch kind {
      case .tcp:
        TCPConnection.connect(to: address, on: loop) { result in
          switch result {
          case .success(let connection): done(.tcp(connection))
          case .failure(let error): failure.withLock { $0 = "\(error)" }
          }
        }
      case .tls:
        let configuration = TLSConfiguration(trustRoots: .caFile(pki.caFile), serverName: "localhost")
        TLSConnection.connect(to: address, configuration: configuration, on: loop) { result in
          switch result {
          case .success(let connection): done(.tls(connection))
          case .failure(let error): failure.withLock { $0 = "\(error)" }
          }
        }
      }
    }
    guard eventually(timeout: .seconds(15), { outcome.value != nil || failure.value != nil }), let stream = outcome.value
    else { throw TestFailure("\(kind) connect to \(address) failed: \(failure.value ?? "timed out")") }
    return (stream, log)
  }

  /// A `ByteStream` held across loop hops.
  final class Box {
    let stream: ByteStream
    init(_ stream: ByteStream) { self.stream = stream }
  }

  @Test(arguments: Kind.allCases)
  func oneDelegateHearsEitherStreamEchoAndCloseInOrder(_ kind: Kind) throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let loop = try EventLoop()
    defer { loop.shutdownGracefully() }
    let tcpServer = try TCPEchoServer(loop: loop)
    defer { tcpServer.close() }
    let tlsServer = try PythonTLSServer(pki: pki, certificate: pki.serverCertificate, key: pki.serverKey)
    defer { tlsServer.stop() }

    let address = kind == .tcp ? tcpServer.address : tlsServer.address
    let (bound, log) = try connect(kind, to: address, pki: pki, on: loop)
    let (other, _) = try connect(kind, to: address, pki: pki, on: loop)
    let identity = try onLoop(loop) {
      let stream = bound.value.stream
      let kindMatches: Bool
      switch (kind, stream) {
      case (.tcp, .tcp), (.tls, .tls): kindMatches = true
      default: kindMatches = false
      }
      return [kindMatches, stream === stream, stream === other.value.stream, !stream.isClosed, stream.isWritable]
    }
    #expect(identity == [true, true, false, true, true], "kind, self, other, open, writable")

    let payload = pattern(count: 150_000, seed: 11)
    try onLoop(loop) { bound.value.stream.write(payload) }
    try onLoop(loop) { bound.value.stream.write(string: "end\n") }
    let expected = payload + Array("end\n".utf8)
    #expect(eventually { log.state.value.received.count >= expected.count })
    #expect(firstDifference(log.state.value.received, expected) == nil)

    try onLoop(loop) {
      bound.value.stream.close()
      other.value.stream.close()
    }
    #expect(eventually { log.state.value.closed })
    #expect(log.state.value.closeError == nil, "an orderly close reports no error")
    #expect(try onLoop(loop) { bound.value.stream.isClosed })
  }

  @Test func aTLSPeerThatEndsWithoutCloseNotifyClosesWithTheTLSError() throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let loop = try EventLoop()
    defer { loop.shutdownGracefully() }
    let server = try PythonTLSServer(
      pki: pki, certificate: pki.serverCertificate, key: pki.serverKey, mode: .greetThenAbort)
    defer { server.stop() }

    let (_, log) = try connect(.tls, to: server.address, pki: pki, on: loop)
    #expect(eventually { log.state.value.closed })
    let state = log.state.value
    #expect(state.received == Array("hello\n".utf8))
    #expect(state.eofCount == 0, "no close_notify, so no EOF")
    #expect(state.closeErrorWasTLS)
    #expect(state.closeError?.hasPrefix(TLSError.unexpectedEOF.description) == true, "\(state.closeError ?? "nil")")
  }

  @Test func aTCPPeerThatEndsIsEOFThenAnOrderlyClose() throws {
    let loop = try EventLoop()
    defer { loop.shutdownGracefully() }
    let pki = try TestPKI()
    defer { pki.remove() }
    // A server that closes every connection as soon as it arrives.
    let bind = try SocketAddress(host: "127.0.0.1", port: 0)
    let listener = try onLoop(loop) {
      LoopBound(
        try TCPListener(address: bind, loop: loop) { fd, peer in
          (try? TCPConnection(fd: fd, loop: loop, remoteAddress: peer))?.close()
        }, on: loop)
    }
    defer { _ = try? onLoop(loop) { listener.value.close() } }
    let address = try onLoop(loop) { listener.value.localAddress }

    let (_, log) = try connect(.tcp, to: address, pki: pki, on: loop)
    #expect(eventually { log.state.value.closed })
    #expect(log.state.value.eofCount == 1)
    #expect(log.state.value.closeError == nil)
  }
}
