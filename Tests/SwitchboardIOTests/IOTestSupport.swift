import Dispatch
import SwitchboardIO
import Synchronization
import Testing
import SwitchboardTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// Helpers shared by the I/O tests: waiting with deadlines, running code on a loop,
// a recording connection delegate, a test server and a blocking POSIX client.

/// Waits until connecting to `address` is refused: the listener is really gone.
func eventuallyRefused(_ address: SocketAddress) -> Bool {
  eventually {
    do {
      _ = try BlockingClient(connectingTo: address)
      return false
    } catch let error as IOError {
      return error.errno == ECONNREFUSED
    } catch {
      return false
    }
  }
}

/// CPU time the calling thread has used.
func threadCPUTime() -> Duration {
  var ts = timespec()
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
  return .seconds(Int64(ts.tv_sec)) + .nanoseconds(Int64(ts.tv_nsec))
}

/// The CPU time `loop`'s thread uses during `window` (measured with the loop's own timer),
/// to catch a loop that spins on a descriptor that stays ready.
func loopCPUTime(_ loop: EventLoop, over window: Duration) throws -> Duration {
  let used = Locked<Duration?>(nil)
  let done = Signal()
  loop.execute {
    let start = threadCPUTime()
    loop.schedule(after: window) {
      used.withLock { $0 = threadCPUTime() - start }
      done.fire()
    }
  }
  guard done.wait(timeout: window + .seconds(5)) else { throw TestFailure("loop timer did not fire") }
  return used.value!
}

/// Whether this machine can bind to IPv6 loopback.
func ipv6LoopbackAvailable() -> Bool {
  let fd = Posix.makeSocket(family: AF_INET6, type: Posix.streamType)
  guard fd >= 0 else { return false }
  defer { Posix.close(fd) }
  guard let address = try? SocketAddress(host: "::1", port: 0) else { return false }
  return address.withSockAddr { sa, len in bind(fd, sa, len) } == 0
}

// MARK: - Server side

/// Everything one server-side connection reported, readable from any thread.
final class ConnectionLog: Sendable {
  struct State: Sendable {
    var received: [UInt8] = []
    var receivedCount = 0
    var eofCount = 0
    var writability: [Bool] = []
    var closed = false
    var closeError: IOError?
    /// Numbers a test's server code wants to report (`bufferedBytes` at some moment, …).
    var notes: [String: Int] = [:]
  }
  let state = Locked(State())
  /// The connection, for code that runs on its loop.
  let connection: LoopBound<TCPConnection>
  var loop: EventLoop { connection.loop }

  init(_ connection: LoopBound<TCPConnection>) { self.connection = connection }

  var received: [UInt8] { state.value.received }
  var receivedCount: Int { state.value.receivedCount }
  var eofCount: Int { state.value.eofCount }
  var writability: [Bool] { state.value.writability }
  var closed: Bool { state.value.closed }
  var closeError: IOError? { state.value.closeError }
  var notes: [String: Int] { state.value.notes }
  func note(_ key: String, _ value: Int) { state.withLock { $0.notes[key] = value } }
}

/// A connection delegate that records what happens into a ``ConnectionLog`` and can echo.
/// It keeps itself alive until the connection closes.
final class RecordingDelegate: TCPConnectionDelegate {
  let log: ConnectionLog
  /// Write back every byte read.
  var echo = false
  /// Keep the received bytes (not just their count).
  var keepReceived = true
  /// What to do on EOF; `nil` closes like the protocol's default.
  var onEOF: ((TCPConnection) -> Void)?
  private var keepAlive: RecordingDelegate?

  init(log: ConnectionLog) {
    self.log = log
    keepAlive = self
  }

  func connection(_ connection: TCPConnection, didRead bytes: UnsafeRawBufferPointer) {
    let keep = keepReceived
    log.state.withLock { state in
      state.receivedCount += bytes.count
      if keep { state.received.append(contentsOf: bytes) }
    }
    if echo { connection.write(SharedBytes(copying: bytes)) }
  }

  func connectionDidReadEOF(_ connection: TCPConnection) {
    log.state.withLock { $0.eofCount += 1 }
    if let onEOF { onEOF(connection) } else { connection.close() }
  }

  func connection(_ connection: TCPConnection, writabilityChanged writable: Bool) {
    log.state.withLock { $0.writability.append(writable) }
  }

  func connection(_ connection: TCPConnection, didCloseWith error: IOError?) {
    log.state.withLock { state in
      state.closed = true
      state.closeError = error
    }
    keepAlive = nil
  }
}

/// A TCP server for tests: a listener on port 0 whose accepted connections each get a
/// ``RecordingDelegate``, spread round-robin over the group's loops. `configure` runs on
/// the connection's loop right after accepting (it may write at once).
final class TestServer: Sendable {
  let group: EventLoopGroup
  let address: SocketAddress
  /// One log per accepted connection, in the order they were set up.
  let connections: Locked<[ConnectionLog]>
  /// Errors while adopting accepted sockets (should stay empty).
  let errors: Locked<[String]>
  private let listener: LoopBound<TCPListener>

  convenience init(
    backend: SelectorBackend, loops: Int = 1, host: String = "127.0.0.1",
    configure: @escaping @Sendable (TCPConnection, RecordingDelegate) -> Void = { _, _ in }
  ) throws {
    try self.init(group: EventLoopGroup(count: loops, backend: backend), host: host, configure: configure)
  }

  /// A server on `group`'s loops (shut down with the server, also when this throws).
  init(
    group: EventLoopGroup, host: String = "127.0.0.1",
    configure: @escaping @Sendable (TCPConnection, RecordingDelegate) -> Void = { _, _ in }
  ) throws {
    let connections = Locked<[ConnectionLog]>([])
    let errors = Locked<[String]>([])
    let listenLoop = group.loops[0]
    let listener: LoopBound<TCPListener>
    do {
      let bind = try SocketAddress(host: host, port: 0)
      listener = try onLoop(listenLoop) {
        let listener = try TCPListener(address: bind, loop: listenLoop) { fd, peer in
          let loop = group.next()
          loop.execute {
            do {
              let connection = try TCPConnection(fd: fd, loop: loop, remoteAddress: peer)
              let log = ConnectionLog(LoopBound(connection, on: loop))
              let delegate = RecordingDelegate(log: log)
              connection.delegate = delegate
              configure(connection, delegate)
              // Published after `configure`, so a test sees what it did at accept time.
              connections.withLock { $0.append(log) }
            } catch {
              errors.withLock { $0.append("\(error)") }
            }
          }
        }
        return LoopBound(listener, on: listenLoop)
      }
      address = try onLoop(listenLoop) { listener.value.localAddress }
    } catch {
      group.shutdownGracefully()
      throw error
    }
    self.group = group
    self.listener = listener
    self.connections = connections
    self.errors = errors
  }

  /// Waits until `count` connections were accepted and returns their logs.
  func waitForConnections(_ count: Int, timeout: Duration = .seconds(5)) throws -> [ConnectionLog] {
    guard eventually(timeout: timeout, { connections.value.count >= count }) else {
      throw TestFailure(
        "expected \(count) connections, got \(connections.value.count); errors: \(errors.value)")
    }
    return connections.value
  }

  /// Closes the listener and stops the loops (closing whatever is still open).
  func shutdown() {
    let listener = self.listener
    _ = try? onLoop(listener.loop) { listener.value.close() }
    group.shutdownGracefully()
  }
}

/// A small, fixed kernel send buffer, so that output piles up in the connection's queue
/// instead of disappearing into a send buffer the kernel grows to megabytes.
func shrinkSendBuffer(_ connection: TCPConnection) {
  var size: Int32 = 16 * 1024
  setsockopt(connection.fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
}

// MARK: - Client side

/// A blocking POSIX TCP client, the test's side of a connection. Every send and receive
/// is bounded by `SO_SNDTIMEO`/`SO_RCVTIMEO`; ``close()`` runs at the latest on deinit.
final class BlockingClient {
  let fd: Int32
  private var closed = false

  /// Connects to `address`; `receiveBuffer` sets `SO_RCVBUF` first (a small one makes
  /// a slow reader).
  init(connectingTo address: SocketAddress, receiveBuffer: Int? = nil, timeout: Duration = .seconds(5)) throws
  {
    fd = Posix.makeSocket(family: address.family, type: Posix.streamType)
    guard fd >= 0 else { throw IOError(call: "socket", errno: errno) }
    var tv = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    if let receiveBuffer { setOption(SOL_SOCKET, SO_RCVBUF, Int32(receiveBuffer)) }
    let err = blockingConnect(fd, to: address, timeout: timeout)
    if err != 0 {
      Posix.close(fd)
      closed = true
      throw IOError(call: "connect", errno: err, detail: address.description)
    }
  }

  deinit { close() }

  func setOption(_ level: Int32, _ name: Int32, _ value: Int32) {
    var v = value
    setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Int32>.size))
  }

  /// The client's own address.
  var localAddress: SocketAddress? {
    var storage = sockaddr_storage()
    var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
    return withUnsafeMutablePointer(to: &storage) { p in
      p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
        getsockname(fd, sa, &len) == 0 ? SocketAddress(sa) : nil
      }
    }
  }

  /// Sends all of `bytes`.
  func send(_ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      let n = bytes.withUnsafeBytes { raw in
        Posix.send(fd, raw.baseAddress! + offset, raw.count - offset)
      }
      if n < 0 {
        if errno == EINTR { continue }
        throw IOError(call: "send", errno: errno)
      }
      offset += n
    }
  }

  func send(_ string: String) throws { try send(Array(string.utf8)) }

  /// Up to `maximum` bytes; empty at EOF. Throws on errors and when the timeout passes.
  func receive(upTo maximum: Int = 65536) throws -> [UInt8] {
    var buffer = [UInt8](repeating: 0, count: maximum)
    while true {
      let n = buffer.withUnsafeMutableBytes { Posix.recv(fd, $0.baseAddress!, maximum) }
      if n < 0 {
        if errno == EINTR { continue }
        throw IOError(call: "recv", errno: errno)
      }
      return Array(buffer[0..<n])
    }
  }

  /// Exactly `count` bytes (fewer only at EOF), reading at most `chunk` at a time.
  func receive(exactly count: Int, chunk: Int = 65536) throws -> [UInt8] {
    var result: [UInt8] = []
    result.reserveCapacity(count)
    while result.count < count {
      let part = try receive(upTo: min(chunk, count - result.count))
      if part.isEmpty { break }
      result += part
    }
    return result
  }

  /// Everything until the peer closes (at most `limit` bytes).
  func receiveUntilEOF(limit: Int = 64 << 20, chunk: Int = 65536) throws -> [UInt8] {
    var result: [UInt8] = []
    while result.count <= limit {
      let part = try receive(upTo: chunk)
      if part.isEmpty { return result }
      result += part
    }
    throw TestFailure("more than \(limit) bytes before EOF")
  }

  /// TCP half-close: no more sending, still receiving.
  func shutdownWrite() { _ = shutdown(fd, Int32(SHUT_WR)) }

  /// Closes with SO_LINGER 0, so the peer gets a reset.
  func resetAndClose() {
    var l = linger(l_onoff: 1, l_linger: 0)
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, socklen_t(MemoryLayout<linger>.size))
    close()
  }

  func close() {
    guard !closed else { return }
    closed = true
    Posix.close(fd)
  }
}

/// A port on 127.0.0.1 that nothing listens on: bound (so nobody else takes it) but not
/// listening, so connections to it are refused. Close the returned descriptor.
func reservedClosedPort(type: Int32 = Posix.streamType) throws -> (
  fd: Int32, address: SocketAddress
) {
  let fd = socket(AF_INET, type, 0)
  guard fd >= 0 else { throw IOError(call: "socket", errno: errno) }
  let any = try SocketAddress(host: "127.0.0.1", port: 0)
  guard any.withSockAddr({ sa, len in bind(fd, sa, len) }) == 0 else {
    let err = errno
    Posix.close(fd)
    throw IOError(call: "bind", errno: err)
  }
  var storage = sockaddr_storage()
  var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
  let address = withUnsafeMutablePointer(to: &storage) { p in
    p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
      getsockname(fd, sa, &len) == 0 ? SocketAddress(sa) : nil
    }
  }
  guard let address else {
    Posix.close(fd)
    throw TestFailure("getsockname failed")
  }
  return (fd, address)
}
