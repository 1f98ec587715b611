import Foundation
import SwitchboardIO
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A UDP relay on 127.0.0.1 in front of one loopback port, the datagram counterpart of
/// ``StallingProxy``'s ``StallingProxy/redirect(to:)``: clients keep sending to ``port``
/// while the server behind it restarts on another port. Each client address gets a socket
/// of its own towards the server (so the server still tells clients apart), and the
/// server's answers go back to that client. One thread polls every socket.
public final class DatagramRelay: Sendable {

  /// The port the relay listens on.
  public let port: Int
  private let front: Int32
  private let upstream: Mutex<Int>
  private let forwarder = ForwarderThread()

  /// Binds a kernel-chosen loopback port and starts relaying to `upstreamPort`.
  /// - Throws: ``TestFailure`` when the socket cannot be made.
  public init(upstreamPort: Int) throws {
    upstream = Mutex(upstreamPort)
    let (fd, port) = try Self.boundDatagramSocket()
    front = fd
    self.port = port
    forwarder.start(name: "datagram-relay") { [self] in run() }
  }

  deinit { close() }

  /// Sends datagrams from now on to `port` (the server's answers still come back).
  public func redirect(to port: Int) {
    upstream.withLock { $0 = port }
  }

  /// Closes every socket and stops the thread (waits for it). Idempotent.
  public func close() { forwarder.stop() }

  /// A client and its socket towards the server.
  private struct Peer {
    var client: sockaddr_in
    let upstream: Int32
  }

  private func run() {
    var peers: [Peer] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    defer {
      for peer in peers { Posix.close(peer.upstream) }
      Posix.close(front)
    }
    while true {
      if forwarder.isStopping { return }
      let upstreamPort = upstream.withLock { $0 }
      var fds = [pollfd(fd: front, events: Int16(POLLIN), revents: 0)]
      fds += peers.map { pollfd(fd: $0.upstream, events: Int16(POLLIN), revents: 0) }
      guard poll(&fds, nfds_t(fds.count), 10) > 0 else { continue }
      if fds[0].revents != 0 {
        var from = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let n = buffer.withUnsafeMutableBytes { bytes in
          withUnsafeMutablePointer(to: &from) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
              recvfrom(front, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT), $0, &length)
            }
          }
        }
        if n >= 0 {
          let index =
            peers.firstIndex { $0.client.sin_port == from.sin_port && $0.client.sin_addr.s_addr == from.sin_addr.s_addr }
            ?? {
              guard let (fd, _) = try? Self.boundDatagramSocket() else { return nil }
              peers.append(Peer(client: from, upstream: fd))
              return peers.count - 1
            }()
          if let index {
            var to = Self.loopback(port: upstreamPort)
            _ = buffer.withUnsafeBytes { bytes in
              withUnsafePointer(to: &to) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                  sendto(peers[index].upstream, bytes.baseAddress, n, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
              }
            }
          }
        }
      }
      for (index, pfd) in fds.dropFirst().enumerated() where pfd.revents != 0 && index < peers.count {
        let n = buffer.withUnsafeMutableBytes { recv(pfd.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        guard n >= 0 else { continue }
        var to = peers[index].client
        _ = buffer.withUnsafeBytes { bytes in
          withUnsafePointer(to: &to) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
              sendto(front, bytes.baseAddress, n, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
          }
        }
      }
    }
  }

  private static func loopback(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return address
  }

  /// A UDP socket bound to a kernel-chosen loopback port, and that port.
  private static func boundDatagramSocket() throws -> (Int32, Int) {
    let fd = Posix.makeSocket(family: AF_INET, type: Posix.datagramType)
    guard fd >= 0 else { throw TestFailure("socket: errno \(errno)") }
    var address = loopback(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
    }
    guard bound == 0 else {
      Posix.close(fd)
      throw TestFailure("relay bind: errno \(errno)")
    }
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
  }
}
