import Foundation
import SwitchboardIO
import SwitchboardTLS
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

private let hygienePeers = Executables.switchboard != nil && TestPKI.hasOpenSSL

/// Resource hygiene: after 10,000 connections come and go over every dialect
/// — clean closes, resets, half-closes, WebSocket closes and drops, UDP members, HTTP
/// requests and silent HTTP connections, TLS handshakes cut off — the real `serve`
/// process is back at its baseline: the same descriptors (`/proc/PID/fd`), no more timers
/// (`switchboard_loop_timers` in `/metrics`), and RSS within 20 MB or 1.5× of where it
/// started, whichever is looser (malloc keeps some of what it was given).
@Suite(
  .onTestThreads,
  .enabled(ifAvailable: hygienePeers, "needs the switchboard binary and openssl"),
  .enabled(ifAvailable: TLSSupport.isAvailable, "needs TLS (TLSSupport)"),
  .enabled(ifAvailable: ProcFS.available, ProcFS.needed))
struct ResourceHygieneTests {
  /// One way a client comes and goes.
  private enum Visit: CaseIterable {
    case lineClean, lineReset, lineHalfClosed, webSocketClean, webSocketDropped, udpMember, httpRequest,
      httpSilent, tlsCutOff, tlsCutOffReset
  }

  @Test func tenThousandConnectionsComeAndGoAndTheServerReturnsToItsBaseline() async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let server = try await ServeProcess.start(["--ephemeral", "--loops", "2", "--tls-cert", pki.serverCertificate, "--tls-key", pki.serverKey, "--log-level", "warning"], listeners: [.tcp, .udp, .http, .tls])
    defer { server.stop() }
    let peer = Peer(line: server.tcp, udp: server.udp, http: server.http, tls: server.tls)

    // Warm-up: every path once, so lazily made things (buffers, tables) exist before the
    // baseline.
    try Self.visit(peer, count: 200)
    try await eventually("warm-up connections closed") { try peer.openConnections() == 0 }
    let baseline = try await Self.settled(server.pid, peer)
    print("hygiene baseline: \(baseline)")

    let clock = ContinuousClock()
    let start = clock.now
    for _ in 0..<50 { try Self.visit(peer, count: 200) }
    let elapsed = clock.now - start
    try await eventually(timeout: .seconds(30), "connections closed") { try peer.openConnections() == 0 }
    try await eventually(timeout: .seconds(30), "descriptors back to \(baseline.descriptors)") {
      Self.descriptors(server.pid) == baseline.descriptors
    }
    var timers = 0
    try await eventually(timeout: .seconds(30), "timers back to \(baseline.timers) (now \(timers))") {
      // Paced: each scrape is a connection with timers of its own.
      usleep(200_000)
      timers = try peer.metric("switchboard_loop_timers")
      return timers <= baseline.timers
    }
    let after = Sample(
      descriptors: Self.descriptors(server.pid), rss: Self.residentBytes(server.pid),
      timers: try peer.metric("switchboard_loop_timers"))
    print("hygiene after 10000 connections in \(elapsed): \(after)")
    #expect(after.descriptors == baseline.descriptors)
    #expect(after.timers <= baseline.timers)
    let allowed = max(baseline.rss + 20 << 20, baseline.rss * 3 / 2)
    #expect(after.rss <= allowed, "RSS \(after.rss >> 10) KiB, allowed \(allowed >> 10) KiB")
    #expect(try peer.metric("switchboard_tcp_connections_accepted_total") >= 10_000 * 7 / 10)
  }

  /// What the process holds.
  private struct Sample: CustomStringConvertible {
    var descriptors: Int
    var rss: Int
    var timers: Int
    var description: String { "\(descriptors) descriptors, RSS \(rss >> 10) KiB, \(timers) timers" }
  }

  /// The baseline once the process is quiet: the most timers seen in three one-second
  /// gauge samples (a sample can include the timer of the scrape before; a leak of
  /// thousands of connections is far above that).
  private static func settled(_ pid: pid_t, _ peer: Peer) async throws -> Sample {
    var timers = 0
    for _ in 0..<3 {
      timers = max(timers, try peer.metric("switchboard_loop_timers"))
      try await Task.sleep(for: .seconds(1))  // the gauge's sampling period, not a wait for an event
    }
    try await eventually("descriptors settled") { try peer.openConnections() == 0 }
    return Sample(descriptors: descriptors(pid), rss: residentBytes(pid), timers: timers)
  }

  private static func descriptors(_ pid: pid_t) -> Int { (try? ProcFS.openDescriptors(pid)) ?? -1 }

  private static func residentBytes(_ pid: pid_t) -> Int { (try? ProcFS.statusBytes(pid)) ?? -1 }

  /// `count` visits, every kind in turn, from eight threads; half-closed ones are closed
  /// at the end of the batch.
  private static func visit(_ peer: Peer, count: Int) throws {
    let failures = Locked<[String]>([])
    DispatchQueue.concurrentPerform(iterations: 8) { worker in
      var lingering: [Int32] = []
      for i in stride(from: worker, to: count, by: 8) {
        let kind = Visit.allCases[i % Visit.allCases.count]
        do {
          if let fd = try peer.visit(kind, serial: i) { lingering.append(fd) }
        } catch {
          failures.withLock { $0.append("\(kind): \(error)") }
        }
      }
      for fd in lingering { close(fd) }
    }
    let failed = failures.withLock { $0 }
    if !failed.isEmpty { throw TestFailure("\(failed.count) visits failed, first: \(failed[0])") }
  }

  /// The client side of the visits, on blocking sockets.
  private struct Peer: Sendable {
    let line: Int
    let udp: Int
    let http: Int
    let tls: Int

    /// One visit; returns a descriptor the caller closes later (half-closed ones).
    func visit(_ kind: Visit, serial: Int) throws -> Int32? {
      switch kind {
      case .lineClean:
        let fd = try connect(line)
        try send(fd, "iam:h\(serial)\nhello\n")
        close(fd)
      case .lineReset:
        let fd = try connect(line)
        try send(fd, "iam:r\(serial)\nhalf a line")
        reset(fd)
      case .lineHalfClosed:
        let fd = try connect(line)
        try send(fd, "iam:s\(serial)\n")
        shutdown(fd, Int32(SHUT_WR))
        return fd
      case .webSocketClean, .webSocketDropped:
        let fd = try connect(http)
        try send(fd, "GET /?name=w\(serial) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        let head = try readUntil(fd, "\r\n\r\n")
        guard head.hasPrefix("HTTP/1.1 101") else {
          close(fd)
          throw TestFailure("upgrade refused: \(head.prefix(40))")
        }
        if kind == .webSocketClean {
          try sendBytes(fd, [0x88, 0x82, 1, 2, 3, 4, 0x03 ^ 1, 0xE8 ^ 2])  // close 1000, masked
          _ = try? readUntil(fd, nil)
          close(fd)
        } else {
          reset(fd)
        }
      case .udpMember:
        let fd = Posix.makeSocket(family: AF_INET, type: Posix.datagramType)
        guard fd >= 0 else { throw TestFailure("socket: errno \(errno)") }
        defer { close(fd) }
        let bytes = Array("hello from \(serial)".utf8)
        let sent = try SocketAddress(host: "127.0.0.1", port: udp).withSockAddr { sa, len in
          sendto(fd, bytes, bytes.count, 0, sa, len)
        }
        guard sent == bytes.count else { throw TestFailure("sendto: errno \(errno)") }
      case .httpRequest:
        let fd = try connect(http)
        try send(fd, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        _ = try readUntil(fd, "ok")
        close(fd)  // a keep-alive connection the client ends
      case .httpSilent:
        close(try connect(http))
      case .tlsCutOff, .tlsCutOffReset:
        let fd = try connect(tls)
        // The start of a ClientHello record that promises 512 bytes and never sends them.
        var hello: [UInt8] = [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03]
        hello += (0..<32).map { _ in UInt8.random(in: 0...255) }
        try sendBytes(fd, hello)
        if kind == .tlsCutOff { close(fd) } else { reset(fd) }
      }
      return nil
    }

    /// A metric's value summed over its label sets, from `GET /metrics`.
    func metric(_ name: String) throws -> Int {
      let fd = try connect(http)
      defer { close(fd) }
      try send(fd, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
      let text = try readUntil(fd, nil)
      var total = 0
      var found = false
      for row in text.split(separator: "\n") where row.hasPrefix(name + " ") || row.hasPrefix(name + "{") {
        if let value = row.split(separator: " ").last.flatMap({ Double($0) }) {
          total += Int(value)
          found = true
        }
      }
      guard found else { throw TestFailure("no \(name) in /metrics") }
      return total
    }

    /// Line and WebSocket sessions open now (the scrape's own HTTP connection is neither).
    func openConnections() throws -> Int {
      try metric("switchboard_tcp_connections_open") + metric("switchboard_websocket_connections_open")
    }

    private func connect(_ port: Int) throws -> Int32 {
      let fd = Posix.makeSocket(family: AF_INET, type: Posix.streamType)
      guard fd >= 0 else { throw TestFailure("socket: errno \(errno)") }
      var timeout = timeval(tv_sec: 10, tv_usec: 0)
      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
      let err = blockingConnect(fd, to: try SocketAddress(host: "127.0.0.1", port: port))
      guard err == 0 else {
        close(fd)
        throw TestFailure("connect to \(port): errno \(err)")
      }
      return fd
    }

    private func send(_ fd: Int32, _ text: String) throws { try sendBytes(fd, Array(text.utf8)) }

    private func sendBytes(_ fd: Int32, _ bytes: [UInt8]) throws {
      var sent = 0
      while sent < bytes.count {
        let n = bytes[sent...].withUnsafeBytes { Posix.send(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { throw TestFailure("send: errno \(errno)") }
        sent += n
      }
    }

    /// Reads until `marker` arrived (or, `nil`, until the peer closes); at most 10 s a read.
    private func readUntil(_ fd: Int32, _ marker: String?) throws -> String {
      var bytes: [UInt8] = []
      var chunk = [UInt8](repeating: 0, count: 16 * 1024)
      while true {
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 {
          if marker == nil { return String(decoding: bytes, as: UTF8.self) }
          throw TestFailure("closed or timed out before \(marker!)")
        }
        bytes += chunk[0..<n]
        if let marker, String(decoding: bytes, as: UTF8.self).contains(marker) {
          return String(decoding: bytes, as: UTF8.self)
        }
      }
    }

    private func reset(_ fd: Int32) {
      var l = linger(l_onoff: 1, l_linger: 0)
      setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, socklen_t(MemoryLayout<linger>.size))
      close(fd)
    }
  }
}
