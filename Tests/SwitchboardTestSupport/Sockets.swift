import Foundation
import SwitchboardIO
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// Socket calls the test clients share. Servers under test listen on port 0 (the kernel
// picks), `switchboard serve` too (``ServeProcess``); only a program that cannot bind a
// kernel-chosen port and say which (`redis-server`) gets ports probed free.

/// Connects the blocking socket `fd` to `address`; 0 or the errno. A blocking `connect`
/// returns `EINTR` when a signal arrives while it waits (a child process of another suite
/// exiting, say) although the connection goes on in the kernel: this waits for it (up to
/// `timeout`) and returns its outcome instead.
public func blockingConnect(_ fd: Int32, to address: SocketAddress, timeout: Duration = .seconds(5)) -> Int32
{
  #if canImport(Glibc)
    let rc = address.withSockAddr { sa, len in Glibc.connect(fd, sa, len) }
  #else
    let rc = address.withSockAddr { sa, len in Darwin.connect(fd, sa, len) }
  #endif
  if rc == 0 { return 0 }
  let err = errno
  guard err == EINTR else { return err }
  var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
  let waitMs = Int32(clamping: timeout.components.seconds * 1000)
  var polled: Int32
  repeat { polled = poll(&pfd, 1, waitMs) } while polled < 0 && errno == EINTR
  guard polled == 1 else { return ETIMEDOUT }
  var soError: Int32 = 0
  var len = socklen_t(MemoryLayout<Int32>.size)
  getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &len)
  return soError
}

/// `count` different ports on 127.0.0.1, free for TCP and UDP a moment ago, for a child
/// process that cannot bind a kernel-chosen port and report it (`redis-server`, whose port
/// 0 means "no TCP"). They are picked at random below the
/// kernel's ephemeral range (`net.ipv4.ip_local_port_range`), from which it takes the
/// ports of every port-0 bind and every outgoing connection: with a thousand client
/// connections in the run, a port from that range that was free when probed is soon
/// somebody's. A port is handed out once per test process: two tests that probed the same
/// free port at the same moment would race to bind it (CI saw "Address already in use").
public func freePorts(_ count: Int) throws -> [Int] {
  let ephemeral = ephemeralPorts()
  let candidates =
    ephemeral.lowerBound > 12_000 ? 10_000...(ephemeral.lowerBound - 1) : (ephemeral.upperBound + 1)...65_535
  var held: [Int32] = []
  defer { for fd in held { close(fd) } }
  var ports: [Int] = []
  for _ in 0..<1000 where ports.count < count {
    let port = Int.random(in: candidates)
    guard !ports.contains(port), !handedOutPorts.withLock({ $0.contains(port) }) else { continue }
    let tcp = try boundSocket(Posix.streamType, port: port)
    let udp = try boundSocket(Posix.datagramType, port: port)
    held += [tcp, udp].filter { $0 >= 0 }
    if tcp >= 0 && udp >= 0 { ports.append(port) }
  }
  guard ports.count == count else { throw TestFailure("found only \(ports.count) of \(count) free ports") }
  handedOutPorts.withLock { $0.formUnion(ports) }
  return ports
}

/// The ports ``freePorts(_:)`` handed out in this process.
private let handedOutPorts = Mutex<Set<Int>>([])

/// A socket bound to 127.0.0.1:`port`, or -1 when that port is taken.
private func boundSocket(_ type: Int32, port: Int) throws -> Int32 {
  let fd = Posix.makeSocket(family: AF_INET, type: type)
  guard fd >= 0 else { throw TestFailure("socket: errno \(errno)") }
  let address = try SocketAddress(host: "127.0.0.1", port: port)
  guard address.withSockAddr({ sa, len in bind(fd, sa, len) }) == 0 else {
    close(fd)
    return -1
  }
  return fd
}

/// The kernel's ephemeral port range (32768…60999 where it cannot be read; Darwin's is
/// 49152…65535 unless changed with sysctl).
private func ephemeralPorts() -> ClosedRange<Int> {
  #if os(Linux)
    let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
  #else
    let text = "49152 65535"
  #endif
  let bounds = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Int($0) }
  guard bounds.count == 2, bounds[0] <= bounds[1] else { return 32_768...60_999 }
  return bounds[0]...bounds[1]
}

/// A loopback TCP port that refuses every connection for as long as this lives: a socket
/// bound to a kernel-chosen port that never listens (the kernel answers a connection
/// attempt with a reset), and that no other socket can bind meanwhile. For tests of "nothing
/// listens there" without guessing a free port.
public final class RefusingPort: Sendable {
  /// The port nothing listens on.
  public let port: Int
  private let fd: Int32

  /// Binds the socket.
  /// - Throws: ``TestFailure`` when it cannot be made or bound.
  public init() throws {
    let fd = Posix.makeSocket(family: AF_INET, type: Posix.streamType)
    guard fd >= 0 else { throw TestFailure("socket: errno \(errno)") }
    let address = try SocketAddress(host: "127.0.0.1", port: 0)
    guard address.withSockAddr({ sa, len in bind(fd, sa, len) }) == 0 else {
      close(fd)
      throw TestFailure("bind: errno \(errno)")
    }
    var bound = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let rc = withUnsafeMutablePointer(to: &bound) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    guard rc == 0 else {
      close(fd)
      throw TestFailure("getsockname: errno \(errno)")
    }
    self.fd = fd
    port = Int(UInt16(bigEndian: bound.sin_port))
  }

  deinit { close(fd) }
}
