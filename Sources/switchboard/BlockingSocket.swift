import Foundation
import SwitchboardIO

/// Plain blocking sockets for the one-shot `send` command.
enum BlockingSocket {
  static func sendTCP(host: String, port: Int, bytes: [UInt8]) throws {
    let address = try SocketAddress.resolve(host: host, port: port)
    let fd = socket(address.family, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw IOError(call: "socket", errno: errno) }
    defer { close(fd) }
    let rc = address.withSockAddr { connect(fd, $0, $1) }
    guard rc == 0 else { throw IOError(call: "connect", errno: errno, detail: address.description) }
    var sent = 0
    while sent < bytes.count {
      let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      if n < 0 {
        if errno == EINTR { continue }
        throw IOError(call: "send", errno: errno)
      }
      sent += n
    }
    // Orderly close: the server reads everything before it sees EOF.
    shutdown(fd, Int32(SHUT_WR))
    var scratch = [UInt8](repeating: 0, count: 4096)
    var tv = timeval(tv_sec: 2, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    while recv(fd, &scratch, scratch.count, 0) > 0 {}
  }

  /// Sends `datagrams` in order from one socket, so the server sees one sender (a UDP
  /// member is its address: `iam:NAME` names only the datagrams that follow from it).
  static func sendUDP(host: String, port: Int, datagrams: [[UInt8]]) throws {
    let address = try SocketAddress.resolve(host: host, port: port)
    let fd = socket(address.family, Int32(SOCK_DGRAM.rawValue), 0)
    guard fd >= 0 else { throw IOError(call: "socket", errno: errno) }
    defer { close(fd) }
    for bytes in datagrams {
      let n = address.withSockAddr { sa, len in bytes.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, 0, sa, len) } }
      guard n >= 0 else { throw IOError(call: "sendto", errno: errno, detail: address.description) }
    }
  }
}
