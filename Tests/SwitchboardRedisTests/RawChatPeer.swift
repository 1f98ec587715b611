import Foundation
import SwitchboardIO
import SwitchboardTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A chat member over a raw socket — the TCP line dialect or UDP datagrams — whose every
/// received line is kept (a reader thread), for the process-level tests.
final class RawChatPeer: Sendable {
  enum Kind: Sendable { case tcp, udp }

  let kind: Kind
  private let fd: Int32
  private let received = Locked<[String]>([])
  private let partial = Locked<[UInt8]>([])
  private let stopped = Locked(false)
  private let done = DispatchSemaphore(value: 0)

  /// Connects (TCP) or binds and connects (UDP) to `port` on 127.0.0.1 and says `iam:name`
  /// (UDP: once it has proven its address, as every UDP client must to be a member).
  init(_ kind: Kind, port: Int, name: String) throws {
    self.kind = kind
    fd = socket(AF_INET, Int32((kind == .tcp ? SOCK_STREAM : SOCK_DGRAM).rawValue), 0)
    guard fd >= 0 else { throw TestFailure("socket: errno \(errno)") }
    var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    guard blockingConnect(fd, to: try SocketAddress(host: "127.0.0.1", port: port)) == 0 else {
      close(fd)
      throw TestFailure("connect to \(port) failed")
    }
    if kind == .udp { try prove() }
    let thread = Thread { [self] in
      readLoop()
      done.signal()
    }
    thread.start()
    send("iam:\(name)")
  }

  deinit {
    stopped.withLock { $0 = true }
    done.wait()
    close(fd)
  }

  /// The UDP address proof (docs/PROTOCOLS.md): a padded `/ok` until the server offers a
  /// code, `/ok CODE` until it accepts; each resent every 250 ms (UDP may lose either).
  private func prove(timeout: Duration = .seconds(15)) throws {
    let deadline = ContinuousClock.now + timeout
    var datagram = "/ok" + String(repeating: " ", count: 61)
    var buffer = [UInt8](repeating: 0, count: 65536)
    while ContinuousClock.now < deadline {
      send(datagram)
      let resend = ContinuousClock.now + .milliseconds(250)
      while ContinuousClock.now < resend {
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { continue }
        let line = String(decoding: buffer[0..<n], as: UTF8.self).trimmingCharacters(in: .newlines)
        if line.hasPrefix("* ok, you are in ") { return }
        if line.hasPrefix("* send /ok "), line.hasSuffix(" to chat") {
          datagram = String(line.dropLast(" to chat".count).dropFirst("* send ".count))
          break
        }
      }
    }
    throw TestFailure("udp peer: the server did not accept the address within \(timeout)")
  }

  /// Sends one line (TCP) or one datagram (UDP).
  func send(_ line: String) {
    let bytes = Array((kind == .tcp ? line + "\n" : line).utf8)
    _ = bytes.withUnsafeBytes { Posix.send(fd, $0.baseAddress, $0.count) }
  }

  /// Every line received so far.
  var lines: [String] { received.value }

  /// Waits until `condition` holds for the lines received.
  func waitFor(
    _ what: String, timeout: Duration = .seconds(15), _ condition: ([String]) -> Bool
  ) throws {
    guard eventually(timeout: timeout, { condition(lines) }) else {
      throw TestFailure("\(kind) peer: no \(what) in \(lines.suffix(20))")
    }
  }

  private func readLoop() {
    var buffer = [UInt8](repeating: 0, count: 65536)
    while !stopped.value {
      let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if n < 0 { continue }
      if n == 0 && kind == .tcp { return }
      let chunk = Array(buffer[0..<max(0, n)])
      switch kind {
      case .udp:
        var text = String(decoding: chunk, as: UTF8.self)
        if text.hasSuffix("\n") { text.removeLast() }
        received.withLock { $0.append(text) }
      case .tcp:
        let complete = partial.withLock { pending -> [String] in
          pending += chunk
          var out: [String] = []
          while let newline = pending.firstIndex(of: 10) {
            out.append(String(decoding: pending[..<newline], as: UTF8.self))
            pending.removeSubrange(...newline)
          }
          return out
        }
        received.withLock { $0 += complete }
      }
    }
  }
}
