import Foundation
import SwitchboardIO
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A TCP proxy on 127.0.0.1 in front of one loopback port that can stop forwarding without
/// closing anything: what a stalled network path looks like to both ends (no reset, no
/// FIN, bytes just stop). Each accepted connection gets its own upstream connection.
///
/// ```swift
/// let proxy = try StallingProxy(upstreamPort: redis.port)
/// proxy.stall()                                      // every connection, both ways, new ones too
/// proxy.stall(.toClient, whereClientSent: "SUBSCRIBE")  // only pub/sub connections' deliveries
/// proxy.stall(whereClientSent: "node-7", includingLater: true)  // one client, reconnects too
/// proxy.resume()                                     // everything held back flows again
/// ```
///
/// A stalled direction is simply not read: its bytes wait in the kernel's buffers (and
/// then the sender's), and arrive in order on ``resume()``. One thread polls every socket;
/// writes block, which is fine for the small volumes of a test.
public final class StallingProxy: Sendable {
  /// Which way bytes stop.
  public enum Direction: Sendable, Hashable, CaseIterable {
    /// From the connecting client to the upstream server.
    case toServer
    /// From the upstream server back to the client.
    case toClient
  }

  private enum Command: Sendable {
    case stall(Set<Direction>, marker: [UInt8]?, later: Bool)
    case resume
  }

  private struct Control: Sendable {
    var commands: [Command] = []
    var accepted = 0
    /// Commands the proxy's thread has carried out.
    var applied = 0
    /// Where new connections go (``redirect(to:)``).
    var upstream: Int
  }

  /// The port the proxy listens on.
  public let port: Int
  /// The port it forwarded to when made (``redirect(to:)`` changes where new connections go).
  public let upstreamPort: Int
  private let listener: Int32
  private let control: Mutex<Control>
  private let forwarder = ForwarderThread()

  /// Listens on a kernel-chosen loopback port and starts forwarding.
  /// - Throws: ``TestFailure`` when the listening socket cannot be made.
  public init(upstreamPort: Int) throws {
    self.upstreamPort = upstreamPort
    control = Mutex(Control(upstream: upstreamPort))
    let fd = Posix.makeSocket(family: AF_INET, type: Posix.streamType)
    guard fd >= 0 else { throw TestFailure("socket: errno \(errno)") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
    }
    guard bound == 0, listen(fd, 128) == 0 else {
      Posix.close(fd)
      throw TestFailure("proxy bind/listen: errno \(errno)")
    }
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    listener = fd
    port = Int(UInt16(bigEndian: address.sin_port))
    forwarder.start(name: "stalling-proxy") { [self] in run() }
  }

  deinit { close() }

  /// Stops forwarding `directions` on the open connections whose client sent `marker`
  /// (anywhere in its first 64 KiB; `nil`: every connection). Without a marker, connections
  /// accepted later are stalled the same way until ``resume()``; with one, only when
  /// `includingLater` — then a later connection stalls as soon as its client has sent the
  /// marker (the bytes that carried it still go through), which is how one client among
  /// many is cut off, its reconnects too. Returns once the proxy's thread applied it: no
  /// byte is forwarded in that direction afterwards.
  public func stall(
    _ directions: Set<Direction> = Set(Direction.allCases), whereClientSent marker: String? = nil,
    includingLater: Bool = false
  ) {
    let target = control.withLock { c -> Int in
      c.commands.append(.stall(directions, marker: marker.map { Array($0.utf8) }, later: includingLater))
      return c.applied + c.commands.count
    }
    _ = eventually(timeout: .seconds(5)) { control.withLock { $0.applied >= target } || forwarder.isStopping }
  }

  /// Stops forwarding one direction (see ``stall(_:whereClientSent:)``).
  public func stall(_ direction: Direction, whereClientSent marker: String? = nil) {
    stall([direction], whereClientSent: marker)
  }

  /// Forwards everything again, held-back bytes first.
  public func resume() {
    control.withLock { $0.commands.append(.resume) }
  }

  /// Sends connections accepted from now on to `port` (a failover behind one address:
  /// connections already made keep their upstream until it closes them).
  public func redirect(to port: Int) {
    control.withLock { $0.upstream = port }
  }

  /// Connections accepted so far.
  public var acceptedCount: Int { control.withLock { $0.accepted } }

  /// Closes every socket and stops the thread (waits for it). Idempotent.
  public func close() { forwarder.stop() }

  // MARK: The proxy thread

  private final class Pair {
    let client: Int32
    let server: Int32
    var clientSent: [UInt8] = []
    var stalled: Set<Direction>
    init(client: Int32, server: Int32, stalled: Set<Direction>) {
      self.client = client
      self.server = server
      self.stalled = stalled
    }
  }

  private func run() {
    var pairs: [Pair] = []
    var stallNew: Set<Direction> = []
    /// Markers that stall a connection once its client sent one (``stall(_:whereClientSent:includingLater:)``).
    var stallMarked: [(directions: Set<Direction>, marker: [UInt8])] = []
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    defer {
      for pair in pairs {
        Posix.close(pair.client)
        Posix.close(pair.server)
      }
      Posix.close(listener)
    }
    while true {
      let commands = control.withLock { c -> [Command] in
        defer { c.commands = [] }
        return c.commands
      }
      defer { control.withLock { $0.applied += commands.count } }
      if forwarder.isStopping { return }
      for command in commands {
        switch command {
        case .resume:
          stallNew = []
          stallMarked = []
          for pair in pairs { pair.stalled = [] }
        case .stall(let directions, let marker, let later):
          if marker == nil { stallNew.formUnion(directions) }
          if let marker, later { stallMarked.append((directions, marker)) }
          for pair in pairs where marker.map({ Self.contains(pair.clientSent, $0) }) ?? true {
            pair.stalled.formUnion(directions)
          }
        }
      }
      var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
      for pair in pairs {
        fds.append(pollfd(fd: pair.client, events: pair.stalled.contains(.toServer) ? 0 : Int16(POLLIN), revents: 0))
        fds.append(pollfd(fd: pair.server, events: pair.stalled.contains(.toClient) ? 0 : Int16(POLLIN), revents: 0))
      }
      let ready = poll(&fds, nfds_t(fds.count), 10)
      guard ready > 0 else { continue }
      if fds[0].revents & Int16(POLLIN) != 0, let pair = accept(stalled: stallNew) { pairs.append(pair) }
      var dead: Set<ObjectIdentifier> = []
      for (index, pair) in pairs.enumerated() where 1 + 2 * index + 1 < fds.count {
        let fromClient = fds[1 + 2 * index].revents
        let fromServer = fds[2 + 2 * index].revents
        if fromClient != 0, !pair.stalled.contains(.toServer) {
          if !forward(pair.client, to: pair.server, &buffer, record: pair) { dead.insert(ObjectIdentifier(pair)) }
          for rule in stallMarked where Self.contains(pair.clientSent, rule.marker) {
            pair.stalled.formUnion(rule.directions)
          }
        }
        if fromServer != 0, !pair.stalled.contains(.toClient) {
          if !forward(pair.server, to: pair.client, &buffer, record: nil) { dead.insert(ObjectIdentifier(pair)) }
        }
      }
      for pair in pairs where dead.contains(ObjectIdentifier(pair)) {
        Posix.close(pair.client)
        Posix.close(pair.server)
      }
      pairs.removeAll { dead.contains(ObjectIdentifier($0)) }
    }
  }

  private func accept(stalled: Set<Direction>) -> Pair? {
    let client = Posix.accept(listener)
    guard client >= 0 else { return nil }
    control.withLock { $0.accepted += 1 }
    let server = Posix.makeSocket(family: AF_INET, type: Posix.streamType)
    guard server >= 0 else {
      Posix.close(client)
      return nil
    }
    guard let upstream = try? SocketAddress(host: "127.0.0.1", port: control.withLock { $0.upstream }),
      blockingConnect(server, to: upstream) == 0
    else {
      Posix.close(client)
      Posix.close(server)
      return nil
    }
    return Pair(client: client, server: server, stalled: stalled)
  }

  /// Reads what is there and writes it all on; false when either side is done.
  private func forward(_ from: Int32, to: Int32, _ buffer: inout [UInt8], record pair: Pair?) -> Bool {
    let count = buffer.withUnsafeMutableBytes { recv(from, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
    if count < 0 { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR }
    if count == 0 { return false }
    if let pair, pair.clientSent.count < 64 * 1024 { pair.clientSent += buffer[0..<count] }
    var sent = 0
    while sent < count {
      let n = buffer.withUnsafeBytes { Posix.send(to, $0.baseAddress! + sent, count - sent) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { return false }
      sent += n
    }
    return true
  }

  private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, haystack.count >= needle.count else { return needle.isEmpty }
    for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
      if haystack[start..<(start + needle.count)].elementsEqual(needle) { return true }
    }
    return false
  }
}
