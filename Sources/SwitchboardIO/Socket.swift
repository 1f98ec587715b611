import CSwitchboardShims

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Low-level socket helpers shared by listeners, connections and datagram sockets.
enum Socket {
  static func make(family: Int32, type: Int32) throws(IOError) -> Int32 {
    let fd = try syscallBlocking("socket") { socket(family, type | Posix.closeOnExecType, 0) }
    _ = sb_set_nonblocking(fd)  // and FD_CLOEXEC, where closeOnExecType is 0
    Posix.keepClosedPeerQuiet(fd)
    return fd
  }

  static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) {
    var v = value
    _ = setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Int32>.size))
  }

  static func bind(_ fd: Int32, to address: SocketAddress) throws(IOError) {
    var rc: Int32 = 0
    repeat {
      rc = address.withSockAddr { sa, len in Posix.bind(fd, sa, len) }
    } while rc < 0 && errno == EINTR
    if rc < 0 { throw IOError(call: "bind", errno: errno, detail: address.description) }
  }

  static func localAddress(_ fd: Int32) -> SocketAddress? {
    var storage = sockaddr_storage()
    var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
    return withUnsafeMutablePointer(to: &storage) { p in
      p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
        getsockname(fd, sa, &len) == 0 ? SocketAddress(sa) : nil
      }
    }
  }

  static func remoteAddress(_ fd: Int32) -> SocketAddress? {
    var storage = sockaddr_storage()
    var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
    return withUnsafeMutablePointer(to: &storage) { p in
      p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
        getpeername(fd, sa, &len) == 0 ? SocketAddress(sa) : nil
      }
    }
  }

  static var streamType: Int32 { Posix.streamType }

  static var datagramType: Int32 { Posix.datagramType }
}
