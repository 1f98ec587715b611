import CSwitchboardShims

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What a ``UDPSocket`` tells its owner. Called on the socket's loop.
public protocol UDPSocketDelegate: AnyObject {
  /// A datagram arrived from `sender`. The buffer is the loop's: copy what you keep.
  /// `truncated` is set when the datagram was larger than the read buffer (64 KiB).
  func socket(_ socket: UDPSocket, didReceive bytes: UnsafeRawBufferPointer, from sender: SocketAddress, truncated: Bool)
}

/// A non-blocking UDP socket bound to one loop.
public final class UDPSocket: Selectable {
  /// The loop the socket runs on.
  public let loop: EventLoop
  /// The bound address (with the kernel-chosen port when bound to port 0).
  public let localAddress: SocketAddress
  /// Receives datagrams.
  public weak var delegate: UDPSocketDelegate?
  private let fd: Int32
  private var closed = false
  /// Datagrams dropped because the kernel's send buffer was full.
  public private(set) var droppedSends = 0

  /// Binds to `address` and starts receiving. Must run on `loop`.
  /// - Throws: ``IOError`` (e.g. `bind` with `EADDRINUSE`).
  public init(bindingTo address: SocketAddress, options: SocketOptions = SocketOptions(), loop: EventLoop) throws(IOError) {
    loop.assertInEventLoop()
    self.loop = loop
    let fd = try Socket.make(family: address.family, type: Socket.datagramType)
    do {
      if options.reuseAddress { Socket.setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1) }
      if address.family == AF_INET6 {
        Socket.setOption(fd, sb_IPPROTO_IPV6, sb_IPV6_V6ONLY, options.v6Only ? 1 : 0)
      }
      try Socket.bind(fd, to: address)
      self.fd = fd
      self.localAddress = Socket.localAddress(fd) ?? address
      try loop.register(self, fd: fd, interest: .read)
    } catch {
      _ = Glibc_close(fd)
      throw error
    }
  }

  public func handle(_ events: ReadyEvents) {
    let buffer = loop.readBuffer
    for _ in 0..<64 {
      if closed { return }
      var storage = sockaddr_storage()
      var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
      let (n, sender) = withUnsafeMutablePointer(to: &storage) { p in
        p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa -> (Int, SocketAddress?) in
          let n = recvfrom(fd, buffer.baseAddress!, buffer.count, Int32(MSG_TRUNC), sa, &len)
          return (n, n >= 0 ? SocketAddress(sa) : nil)
        }
      }
      if n < 0 {
        if errno == EINTR { continue }
        return  // EAGAIN, or an ICMP error reported for an earlier send: nothing to read
      }
      guard let sender else { continue }
      let truncated = n > buffer.count
      delegate?.socket(
        self, didReceive: UnsafeRawBufferPointer(rebasing: buffer[0..<min(n, buffer.count)]), from: sender,
        truncated: truncated)
    }
  }

  /// Sends one datagram; a full send buffer drops it (counted in ``droppedSends``).
  /// - Returns: `false` when the datagram could not be sent.
  @discardableResult
  public func send(_ bytes: UnsafeRawBufferPointer, to address: SocketAddress) -> Bool {
    guard !closed else { return false }
    let n = address.withSockAddr { sa, len in
      sendto(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), sa, len)
    }
    if n < 0 {
      droppedSends += 1
      return false
    }
    return true
  }

  /// Sends `bytes` as one datagram.
  @discardableResult
  public func send(_ bytes: SharedBytes, to address: SocketAddress) -> Bool {
    bytes.withUnsafeBytes { send($0, to: address) }
  }

  /// Closes the socket. Loop thread only.
  public func close() {
    guard !closed else { return }
    closed = true
    loop.deregisterAndClose(fd: fd)
  }
}

@available(*, unavailable)
extension UDPSocket: Sendable {}
