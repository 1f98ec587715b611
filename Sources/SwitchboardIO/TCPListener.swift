import CSwitchboardShims

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A non-blocking TCP listening socket on one loop; accepted sockets are handed to
/// `onAccept`, which typically picks a loop from a group and wraps the descriptor in a
/// ``TCPConnection`` there.
public final class TCPListener: Selectable {
  /// The loop the listener runs on.
  public let loop: EventLoop
  /// The bound address (with the kernel-chosen port when bound to port 0).
  public let localAddress: SocketAddress
  private let fd: Int32
  private let onAccept: (Int32, SocketAddress?) -> Void
  private var closed = false
  private var pausedUntilRetry = false

  /// Binds and listens on `address` and starts accepting on `loop`. Must run on `loop`.
  /// - Parameters:
  ///   - address: where to listen (port 0: the kernel picks one; see ``localAddress``).
  ///   - options: socket options for the listener.
  ///   - loop: the loop that accepts (the current one).
  ///   - onAccept: called on `loop` with each accepted (non-blocking) descriptor, which it
  ///     then owns, and the peer's address.
  /// - Throws: ``IOError`` (e.g. `bind` with `EADDRINUSE`).
  public init(
    address: SocketAddress, options: SocketOptions = SocketOptions(), loop: EventLoop,
    onAccept: @escaping (Int32, SocketAddress?) -> Void
  ) throws(IOError) {
    loop.assertInEventLoop()
    self.loop = loop
    self.onAccept = onAccept
    let fd = try Socket.make(family: address.family, type: Socket.streamType)
    do {
      if options.reuseAddress { Socket.setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1) }
      if options.reusePort && sb_SO_REUSEPORT >= 0 { Socket.setOption(fd, SOL_SOCKET, sb_SO_REUSEPORT, 1) }
      if address.family == AF_INET6 {
        Socket.setOption(fd, sb_IPPROTO_IPV6, sb_IPV6_V6ONLY, options.v6Only ? 1 : 0)
      }
      try Socket.bind(fd, to: address)
      try syscallBlocking("listen") { listen(fd, options.backlog) }
      self.fd = fd
      self.localAddress = Socket.localAddress(fd) ?? address
      try loop.register(self, fd: fd, interest: .read)
    } catch {
      _ = Posix.close(fd)
      throw error
    }
  }

  public func handle(_ events: ReadyEvents) {
    acceptAll()
  }

  private func acceptAll() {
    // Bounded so one busy listener cannot starve the loop's connections.
    for _ in 0..<256 {
      var storage = sockaddr_storage()
      var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
      let result = withUnsafeMutablePointer(to: &storage) { p in
        p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
          Result { () throws(IOError) -> (IOResult<Int32>, SocketAddress?) in
            let r = try syscall("accept4") { sb_accept_nonblocking(fd, sa, &len) }
            return (r, SocketAddress(sa))
          }
        }
      }
      switch result {
      case .success((.processed(let client), let peer)):
        Posix.keepClosedPeerQuiet(client)
        onAccept(client, peer)
      case .success((.wouldBlock, _)):
        return
      case .failure(let error):
        if error.errno == EMFILE || error.errno == ENFILE || error.errno == ENOBUFS || error.errno == ENOMEM {
          // Out of descriptors: stop accepting for a moment instead of spinning.
          pauseAccepting()
          return
        }
        if error.errno == ECONNABORTED { continue }
        return
      }
    }
  }

  private func pauseAccepting() {
    guard !pausedUntilRetry, !closed else { return }
    pausedUntilRetry = true
    loop.setInterest(fd: fd, [])
    loop.scheduleLocal(after: .milliseconds(100)) { [weak self] in
      guard let self, !self.closed else { return }
      self.pausedUntilRetry = false
      self.loop.setInterest(fd: self.fd, .read)
    }
  }

  /// Stops listening and closes the socket. Loop thread only.
  public func close() {
    guard !closed else { return }
    closed = true
    loop.deregisterAndClose(fd: fd)
  }
}

@available(*, unavailable)
extension TCPListener: Sendable {}
