#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The C library's socket constants and calls whose spelling differs between Glibc and Darwin,
/// in one place, so that the rest of the package (and its tests) says `Posix.streamType` or
/// `Posix.close(fd)` and compiles on both.
///
/// - Glibc imports `SOCK_STREAM` and friends as enums (`.rawValue`), Darwin as `Int32`.
/// - `SOCK_CLOEXEC` and `MSG_NOSIGNAL` are Linux's: on Darwin close-on-exec is set with
///   `fcntl` and `SIGPIPE` is kept off with `SO_NOSIGPIPE` on the socket (``makeSocket(family:type:)``
///   does both), so their flags are 0 there.
/// - `MSG_TRUNC` as an input flag (the datagram's full length returned) is Linux's; Darwin
///   returns at most the buffer, so a datagram larger than it is not reported as truncated there.
/// - Inside a type with its own `close()` or `send(_:)`, a free function can be named only by its
///   module (`Glibc.close`), which does not exist on Darwin: these wrappers have names of their own.
package enum Posix {
  /// `SOCK_STREAM`.
  package static var streamType: Int32 {
    #if canImport(Glibc)
      Int32(SOCK_STREAM.rawValue)
    #else
      SOCK_STREAM
    #endif
  }

  /// `SOCK_DGRAM`.
  package static var datagramType: Int32 {
    #if canImport(Glibc)
      Int32(SOCK_DGRAM.rawValue)
    #else
      SOCK_DGRAM
    #endif
  }

  /// `SOCK_CLOEXEC` for `socket()`'s type on Linux; 0 elsewhere (``makeSocket(family:type:)``
  /// sets `FD_CLOEXEC` afterwards there).
  package static var closeOnExecType: Int32 {
    #if os(Linux)
      Int32(SOCK_CLOEXEC.rawValue)
    #else
      0
    #endif
  }

  /// `MSG_NOSIGNAL` for `send`/`sendto` on Linux; 0 elsewhere (the socket carries `SO_NOSIGPIPE`).
  package static var noSignalFlag: Int32 {
    #if os(Linux)
      Int32(MSG_NOSIGNAL)
    #else
      0
    #endif
  }

  /// `MSG_TRUNC` for `recvfrom` on Linux (it then returns a datagram's full length); 0 elsewhere.
  package static var receiveTruncatedFlag: Int32 {
    #if os(Linux)
      Int32(MSG_TRUNC)
    #else
      0
    #endif
  }

  /// A blocking socket of `family` and `type`, closed on exec and raising no `SIGPIPE`: `-1` with
  /// `errno` when it cannot be made. (Tests' plain peers; the loops' sockets come from
  /// `Socket.make`, which makes them non-blocking too.)
  package static func makeSocket(family: Int32, type: Int32) -> Int32 {
    let fd = socket(family, type | closeOnExecType, 0)
    if fd >= 0 { keepClosedPeerQuiet(fd) }
    #if !os(Linux)
      if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    #endif
    return fd
  }

  /// Sets `SO_NOSIGPIPE` where it exists (Darwin), so that a write to a closed peer fails with
  /// `EPIPE` instead of raising `SIGPIPE`; nothing on Linux, where each send says `MSG_NOSIGNAL`.
  package static func keepClosedPeerQuiet(_ fd: Int32) {
    #if canImport(Darwin)
      var one: Int32 = 1
      _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
    #endif
  }

  /// Ignores `SIGPIPE` in the whole process, so that a write to a closed peer fails with `EPIPE`
  /// (what every ``EventLoop`` does when it starts).
  package static func ignoreBrokenPipes() { _ = signal(SIGPIPE, SIG_IGN) }

  /// `close(2)`.
  @discardableResult @inline(__always)
  package static func close(_ fd: Int32) -> Int32 { closeDescriptor(fd) }

  /// `read(2)`.
  @inline(__always)
  package static func read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    readDescriptor(fd, buffer, count)
  }

  /// `write(2)`.
  @inline(__always)
  package static func write(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    writeDescriptor(fd, buffer, count)
  }

  /// `send(2)` with ``noSignalFlag`` added to `flags`.
  @inline(__always)
  package static func send(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int, flags: Int32 = 0) -> Int {
    sendSocket(fd, buffer, count, flags | noSignalFlag)
  }

  /// `recv(2)`.
  @inline(__always)
  package static func recv(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int, flags: Int32 = 0)
    -> Int
  {
    recvSocket(fd, buffer, count, flags)
  }

  /// `accept(2)` without the peer's address.
  @inline(__always)
  package static func accept(_ fd: Int32) -> Int32 { acceptSocket(fd, nil, nil) }

  /// `connect(2)`.
  @inline(__always)
  package static func connect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    connectSocket(fd, address, length)
  }

  /// `bind(2)`.
  @inline(__always)
  package static func bind(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    bindSocket(fd, address, length)
  }

  /// `pipe(2)`: `fds[0]` reads, `fds[1]` writes.
  @inline(__always)
  package static func pipe(_ fds: inout [Int32]) -> Int32 {
    fds.withUnsafeMutableBufferPointer { makePipe($0.baseAddress!) }
  }

  /// The `linger` struct (`SO_LINGER`).
  #if canImport(Glibc)
    package typealias Linger = Glibc.linger
  #else
    package typealias Linger = Darwin.linger
  #endif
}

// The C calls under names no type shadows (a `close()` method hides the free `close` inside its
// type; these file-level functions are outside every type).
@inline(__always) private func closeDescriptor(_ fd: Int32) -> Int32 { close(fd) }
@inline(__always) private func readDescriptor(_ fd: Int32, _ p: UnsafeMutableRawPointer?, _ n: Int) -> Int {
  read(fd, p, n)
}
@inline(__always) private func writeDescriptor(_ fd: Int32, _ p: UnsafeRawPointer?, _ n: Int) -> Int {
  write(fd, p, n)
}
@inline(__always) private func sendSocket(_ fd: Int32, _ p: UnsafeRawPointer?, _ n: Int, _ flags: Int32)
  -> Int
{
  send(fd, p, n, flags)
}
@inline(__always) private func recvSocket(
  _ fd: Int32, _ p: UnsafeMutableRawPointer?, _ n: Int, _ flags: Int32
) -> Int {
  recv(fd, p, n, flags)
}
@inline(__always) private func acceptSocket(
  _ fd: Int32, _ a: UnsafeMutablePointer<sockaddr>?, _ l: UnsafeMutablePointer<socklen_t>?
) -> Int32 { accept(fd, a, l) }
@inline(__always) private func connectSocket(_ fd: Int32, _ a: UnsafePointer<sockaddr>, _ l: socklen_t)
  -> Int32
{
  connect(fd, a, l)
}
@inline(__always) private func bindSocket(_ fd: Int32, _ a: UnsafePointer<sockaddr>, _ l: socklen_t) -> Int32
{
  bind(fd, a, l)
}
@inline(__always) private func makePipe(_ fds: UnsafeMutablePointer<Int32>) -> Int32 { pipe(fds) }
