import Foundation
import SwitchboardIO

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// Socket calls the test clients share. Servers under test listen on port 0 (the kernel
// picks), `switchboard serve` too (``ServeProcess``); only a program that cannot bind a
// kernel-chosen port and say which (`redis-server`) gets a ``ReservedPort``.

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
