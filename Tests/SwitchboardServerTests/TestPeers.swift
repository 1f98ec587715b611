import Foundation
import SwitchboardIO
import SwitchboardServer
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Starts a server on loopback with kernel-chosen ports and stops it when done.
func withServer<T>(
  _ configure: (inout ServerConfiguration) -> Void = { _ in },
  _ body: (ChatServer) async throws -> T
) async throws -> T {
  var config = ServerConfiguration.loopbackForTesting()
  configure(&config)
  let server = try ChatServer(configuration: config)
  try server.start()
  do {
    let result = try await body(server)
    server.shutdown()
    return result
  } catch {
    server.shutdown()
    throw error
  }
}

/// Two line members of the lobby, `reader` and `w`, the reader past `w`'s arrival: what `w`
/// sends next is the next thing the reader hears.
func linePair(_ server: ChatServer) throws -> (reader: LineClient, writer: LineClient) {
  let reader = try LineClient(server.tcpAddress!)
  try reader.join(as: "reader")
  let writer = try LineClient(server.tcpAddress!)
  try writer.join(as: "w")
  try reader.expectLine("* w has joined")
  return (reader, writer)
}

/// A blocking TCP client with deadline-bounded line reads: a peer written independently
/// of the server's I/O code.
final class LineClient {
  let fd: Int32
  private var buffer: [UInt8] = []
  private(set) var closedByPeer = false

  /// Connects to `address`, from `source` (an address on this host, port 0) when given,
  /// with a receive buffer of `receiveBuffer` bytes and a maximum segment of `maxSegment`
  /// when given (set before connecting, so the window it advertises is small from the
  /// start, and the server's kernel sizes its send buffer for small segments: loopback's
  /// 64 KiB ones make it megabytes).
  init(
    _ address: SocketAddress, from source: SocketAddress? = nil, receiveBuffer: Int32? = nil,
    maxSegment: Int32? = nil
  ) throws {
    fd = Posix.makeSocket(family: address.family, type: Posix.streamType)
    guard fd >= 0 else { throw TestFailure("socket: \(errno)") }
    if let receiveBuffer { setReceiveBuffer(receiveBuffer) }
    if var maxSegment {
      setsockopt(fd, Int32(IPPROTO_TCP), TCP_MAXSEG, &maxSegment, socklen_t(MemoryLayout<Int32>.size))
    }
    if let source, source.withSockAddr({ bind(fd, $0, $1) }) != 0 {
      close(fd)
      throw TestFailure("bind to \(source): errno \(errno)")
    }
    let err = blockingConnect(fd, to: address)
    guard err == 0 else {
      close(fd)
      throw TestFailure("connect to \(address): errno \(err)")
    }
  }

  deinit { close(fd) }

  /// Bytes received and not yet consumed.
  var bufferedBytes: [UInt8] { buffer }
  func clearBuffer() { buffer.removeAll() }

  /// Sends raw bytes.
  func send(_ bytes: [UInt8]) throws {
    var sent = 0
    while sent < bytes.count {
      let n = bytes[sent...].withUnsafeBytes { Posix.send(fd, $0.baseAddress, $0.count) }
      if n < 0 {
        if errno == EINTR { continue }
        throw TestFailure("send: errno \(errno)")
      }
      sent += n
    }
  }

  func send(_ text: String) throws { try send(Array(text.utf8)) }

  /// Sends `text` plus a newline.
  func sendLine(_ text: String) throws { try send(text + "\n") }

  /// Reads whatever arrives within `timeout` (returns false on timeout or EOF).
  @discardableResult
  func fill(timeout: Duration) -> Bool {
    var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    let ms = Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
    let r = poll(&pfd, 1, max(ms, 0))
    guard r > 0 else { return false }
    var chunk = [UInt8](repeating: 0, count: 65536)
    let n = recv(fd, &chunk, chunk.count, 0)
    if n <= 0 {
      closedByPeer = true
      return false
    }
    buffer.append(contentsOf: chunk[0..<n])
    return true
  }

  /// The next line (without its newline), or throws after `timeout`.
  func readLine(timeout: Duration = .seconds(10)) throws -> String {
    let deadline = ContinuousClock.now + timeout
    while true {
      if let nl = buffer.firstIndex(of: 0x0A) {
        let line = Array(buffer[..<nl])
        buffer.removeSubrange(...nl)
        return String(decoding: line, as: UTF8.self)
      }
      let left = deadline - ContinuousClock.now
      if left <= .zero || closedByPeer {
        throw TestFailure("no line within \(timeout) (closed: \(closedByPeer), buffered: \(String(decoding: buffer, as: UTF8.self).debugDescription))")
      }
      fill(timeout: min(left, .milliseconds(200)))
    }
  }

  /// Reads lines until one satisfies `match`; returns it. Throws on timeout.
  @discardableResult
  func expectLine(timeout: Duration = .seconds(10), _ match: (String) -> Bool) throws -> String {
    let deadline = ContinuousClock.now + timeout
    var seen: [String] = []
    while true {
      let left = deadline - ContinuousClock.now
      guard left > .zero else { throw TestFailure("expected line not seen; got \(seen)") }
      do {
        let line = try readLine(timeout: left)
        if match(line) { return line }
        seen.append(line)
      } catch {
        throw TestFailure("expected line not seen; got \(seen) (\(error))")
      }
    }
  }

  func expectLine(_ exact: String, timeout: Duration = .seconds(10)) throws {
    try expectLine(timeout: timeout) { $0 == exact }
  }

  /// Joins as `name` and waits until the answer to `/who` lists it: from then on this
  /// client is in the room and hears whatever anyone does next. (Sending `iam:` alone is
  /// not enough before others act: the server may still be setting the connection up.)
  func join(as name: String, timeout: Duration = .seconds(10)) throws {
    try sendLine("iam:\(name)")
    try sendLine("/who")
    try expectLine(timeout: timeout) { line in
      guard line.hasPrefix("* in "), let colon = line.range(of: "): ") else { return false }
      return line[colon.upperBound...].components(separatedBy: ", ").contains(name)
    }
  }

  /// Asserts nothing arrives for `window` (used sparingly: only to prove absence).
  func expectSilence(for window: Duration) -> [String] {
    var lines: [String] = []
    let deadline = ContinuousClock.now + window
    while ContinuousClock.now < deadline {
      if let line = try? readLine(timeout: deadline - ContinuousClock.now) { lines.append(line) }
    }
    return lines
  }

  /// Waits until the server closes the connection.
  func expectClosed(timeout: Duration = .seconds(5)) throws {
    let deadline = ContinuousClock.now + timeout
    while !closedByPeer {
      guard ContinuousClock.now < deadline else { throw TestFailure("connection still open") }
      fill(timeout: .milliseconds(100))
    }
  }

  /// Closes with a TCP reset instead of a FIN.
  func reset() {
    var l = linger(l_onoff: 1, l_linger: 0)
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, socklen_t(MemoryLayout<linger>.size))
    shutdown(fd, Int32(SHUT_RDWR))
  }

  /// Sets a small receive buffer (for never-reading clients).
  func setReceiveBuffer(_ bytes: Int32) {
    var v = bytes
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, socklen_t(MemoryLayout<Int32>.size))
  }
}

/// A blocking UDP peer with deadline-bounded receives.
final class DatagramPeer {
  let fd: Int32
  let target: SocketAddress

  /// Sends to `target`, from `source` (an address on this host, port 0) when given.
  init(_ target: SocketAddress, from source: SocketAddress? = nil) throws {
    self.target = target
    fd = Posix.makeSocket(family: target.family, type: Posix.datagramType)
    guard fd >= 0 else { throw TestFailure("socket: \(errno)") }
    if let source, source.withSockAddr({ bind(fd, $0, $1) }) != 0 {
      close(fd)
      throw TestFailure("bind to \(source): errno \(errno)")
    }
  }

  deinit { close(fd) }

  func send(_ text: String) throws { try send(Array(text.utf8)) }

  func send(_ bytes: [UInt8]) throws {
    let n = target.withSockAddr { sa, len in bytes.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, 0, sa, len) } }
    guard n >= 0 else { throw TestFailure("sendto: errno \(errno)") }
  }

  /// The next datagram as text, or throws after `timeout`.
  func receive(timeout: Duration = .seconds(5)) throws -> String {
    var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    let ms = Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
    guard poll(&pfd, 1, ms) > 0 else { throw TestFailure("no datagram within \(timeout)") }
    var chunk = [UInt8](repeating: 0, count: 65536)
    let n = recv(fd, &chunk, chunk.count, 0)
    guard n >= 0 else { throw TestFailure("recv: errno \(errno)") }
    return String(decoding: chunk[0..<n], as: UTF8.self)
  }

  /// Every datagram that arrives until none has for `quiet`, or `limit` has passed (used
  /// to count what a source is sent: proving an absence needs a window).
  func drain(quietFor quiet: Duration = .milliseconds(500), atMost limit: Duration = .seconds(5))
    -> [String]
  {
    var got: [String] = []
    let end = ContinuousClock.now + limit
    while ContinuousClock.now < end, let d = try? receive(timeout: min(quiet, end - ContinuousClock.now)) {
      got.append(d)
    }
    return got
  }

  /// The code in the server's offer (`* send /ok CODE to chat`), waiting for it.
  func expectOffer(timeout: Duration = .seconds(5)) throws -> String {
    let prefix = "* send /ok "
    let offer = try expect(timeout: timeout) { $0.hasPrefix(prefix) }
    let code = String(offer.dropFirst(prefix.count).dropLast(" to chat\n".count))
    guard offer.hasSuffix(" to chat\n"), code.count == 16, code.allSatisfy(\.isHexDigit) else {
      throw TestFailure("malformed offer \(offer.debugDescription)")
    }
    return code
  }

  /// Proves this peer's address, as every UDP client must before it is a member
  /// (docs/PROTOCOLS.md): a padded `/ok` asks for a code, `/ok CODE` sends it back, and the
  /// server accepts.
  func prove(timeout: Duration = .seconds(5)) throws {
    try send("/ok" + String(repeating: " ", count: 61))
    let code = try expectOffer(timeout: timeout)
    try send("/ok \(code)")
    try expect(timeout: timeout) { $0.hasPrefix("* ok, you are in ") }
  }

  /// Receives until a datagram satisfies `match`.
  @discardableResult
  func expect(timeout: Duration = .seconds(5), _ match: (String) -> Bool) throws -> String {
    let deadline = ContinuousClock.now + timeout
    var seen: [String] = []
    while true {
      let left = deadline - ContinuousClock.now
      guard left > .zero else { throw TestFailure("expected datagram not seen; got \(seen)") }
      let d = try receive(timeout: left)
      if match(d) { return d }
      seen.append(d)
    }
  }
}
