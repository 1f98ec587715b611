import SwitchboardIO

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// Socket calls the test clients share. Servers under test listen on port 0 (the kernel
// picks); only a child process whose port 0 means "off" (the CLI) gets ports probed free.

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

/// `count` TCP ports on 127.0.0.1 that were free a moment ago (bound to port 0 together,
/// so they differ, and released), for a child process whose port 0 means "off".
public func freePorts(_ count: Int) throws -> [Int] {
  var fds: [Int32] = []
  defer { fds.forEach { close($0) } }
  var ports: [Int] = []
  for _ in 0..<count {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw TestFailure("socket: errno \(errno)") }
    fds.append(fd)
    let any = try SocketAddress(host: "127.0.0.1", port: 0)
    guard any.withSockAddr({ sa, len in bind(fd, sa, len) }) == 0, let bound = boundAddress(of: fd) else {
      throw TestFailure("could not probe a free port: errno \(errno)")
    }
    ports.append(bound.port)
  }
  return ports
}

/// The local address a socket is bound to (`getsockname`), `nil` if that fails.
public func boundAddress(of fd: Int32) -> SocketAddress? {
  var storage = sockaddr_storage()
  var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
  return withUnsafeMutablePointer(to: &storage) { p in
    p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
      getsockname(fd, sa, &len) == 0 ? SocketAddress(sa) : nil
    }
  }
}
