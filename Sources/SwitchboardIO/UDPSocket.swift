import CSwitchboardShims

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What a ``UDPSocket`` tells its owner. Called on the socket's loop.
public protocol UDPSocketDelegate: AnyObject {
  /// A datagram arrived from `sender`. The buffer is the loop's: copy what you keep.
  /// `truncated` is set when the datagram was larger than the read buffer (64 KiB; Linux
  /// only: Darwin does not report it, and no UDP datagram is that large).
  func socket(_ socket: UDPSocket, didReceive bytes: UnsafeRawBufferPointer, from sender: SocketAddress, truncated: Bool)
  /// The same, with the index of the interface the datagram came in on; called instead of
  /// the other method once ``UDPSocket/enableMulticast(hops:)`` is on. By default it forwards
  /// to the other method.
  func socket(
    _ socket: UDPSocket, didReceive bytes: UnsafeRawBufferPointer, from sender: SocketAddress, interface: UInt32,
    truncated: Bool)
}

extension UDPSocketDelegate {
  public func socket(
    _ socket: UDPSocket, didReceive bytes: UnsafeRawBufferPointer, from sender: SocketAddress, interface: UInt32,
    truncated: Bool
  ) {
    self.socket(socket, didReceive: bytes, from: sender, truncated: truncated)
  }
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
  /// Datagrams are read with their receiving interface (``enableMulticast(hops:)``).
  private var readsInterface = false
  /// Datagrams dropped because the kernel's send buffer was full.
  public private(set) var droppedSends = 0

  /// Binds to `address` and starts receiving. Must run on `loop`. By default the socket has
  /// its port to itself (``SocketOptions/exclusiveDatagram``): a port another socket holds
  /// is refused, not shared.
  /// - Throws: ``IOError`` (e.g. `bind` with `EADDRINUSE`).
  public init(
    bindingTo address: SocketAddress, options: SocketOptions = .exclusiveDatagram, loop: EventLoop
  ) throws(IOError) {
    loop.assertInEventLoop()
    self.loop = loop
    let fd = try Socket.make(family: address.family, type: Socket.datagramType)
    do {
      if options.reuseAddress { Socket.setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1) }
      if options.reusePort, sb_SO_REUSEPORT >= 0 { Socket.setOption(fd, SOL_SOCKET, sb_SO_REUSEPORT, 1) }
      if address.family == AF_INET6 {
        Socket.setOption(fd, sb_IPPROTO_IPV6, sb_IPV6_V6ONLY, options.v6Only ? 1 : 0)
      }
      try Socket.bind(fd, to: address)
      self.fd = fd
      self.localAddress = Socket.localAddress(fd) ?? address
      try loop.register(self, fd: fd, interest: .read)
    } catch {
      _ = Posix.close(fd)
      throw error
    }
  }

  public func handle(_ events: ReadyEvents) {
    let buffer = loop.readBuffer
    if readsInterface { return readWithInterface(buffer) }
    for _ in 0..<64 {
      if closed { return }
      var storage = sockaddr_storage()
      var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
      let (n, sender) = withUnsafeMutablePointer(to: &storage) { p in
        p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa -> (Int, SocketAddress?) in
          let n = recvfrom(fd, buffer.baseAddress!, buffer.count, Posix.receiveTruncatedFlag, sa, &len)
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

  private func readWithInterface(_ buffer: UnsafeMutableRawBufferPointer) {
    for _ in 0..<64 {
      if closed { return }
      var storage = sockaddr_storage()
      var interface: UInt32 = 0
      let n = sb_recv_from_interface(fd, buffer.baseAddress!, buffer.count, &storage, &interface)
      if n < 0 {
        if errno == EINTR { continue }
        return
      }
      let sender = withUnsafePointer(to: &storage) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketAddress($0) }
      }
      guard let sender else { continue }
      delegate?.socket(
        self, didReceive: UnsafeRawBufferPointer(rebasing: buffer[0..<min(n, buffer.count)]), from: sender,
        interface: interface, truncated: n > buffer.count)
    }
  }

  // MARK: Multicast

  /// Turns on what a multicast protocol such as mDNS needs: multicast loop (other programs
  /// on this host hear us), TTL / hop limit `hops` for multicast, and the receiving
  /// interface reported with each datagram (the delegate's `interface:` method).
  /// - Throws: ``IOError`` from `setsockopt`.
  public func enableMulticast(hops: Int = 255) throws(IOError) {
    guard sb_multicast_setup(fd, localAddress.family, Int32(hops)) == 0 else {
      throw IOError(call: "setsockopt", errno: errno, detail: "multicast loop/hops/pktinfo")
    }
    readsInterface = true
  }

  /// Joins the multicast `group` (224.0.0.251, ff02::fb…; same family as the socket) on the
  /// interface with index `interface`.
  /// - Throws: ``IOError`` (`EADDRINUSE` when already joined there).
  public func joinMulticastGroup(_ group: SocketAddress, interface: UInt32) throws(IOError) {
    let rc = group.addressBytes.withUnsafeBufferPointer { sb_multicast_join(fd, group.family, $0.baseAddress, interface) }
    guard rc == 0 else {
      throw IOError(call: "setsockopt", errno: errno, detail: "join \(group.ipAddress) on interface \(interface)")
    }
  }

  /// Sends one datagram to a multicast `group` out of the interface with index `interface`
  /// (`IP_MULTICAST_IF` / `IPV6_MULTICAST_IF`; an IPv6 group gets that interface as its scope).
  /// - Returns: `false` when it could not be sent (counted in ``droppedSends``).
  @discardableResult
  public func send(_ bytes: UnsafeRawBufferPointer, toGroup group: SocketAddress, interface: UInt32) -> Bool {
    guard !closed else { return false }
    guard sb_multicast_set_interface(fd, group.family, interface) == 0 else {
      droppedSends += 1
      return false
    }
    return send(bytes, to: group.withScope(interface))
  }

  /// Sends one datagram; a full send buffer drops it (counted in ``droppedSends``).
  /// - Returns: `false` when the datagram could not be sent.
  @discardableResult
  public func send(_ bytes: UnsafeRawBufferPointer, to address: SocketAddress) -> Bool {
    guard !closed else { return false }
    let n = address.withSockAddr { sa, len in
      sendto(fd, bytes.baseAddress, bytes.count, Posix.noSignalFlag, sa, len)
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
