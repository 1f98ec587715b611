import Foundation
import SwitchboardIO
import SwitchboardServer
import SwitchboardTestSupport
import SwitchboardWebSocket
import Testing

/// The limits of docs/SECURITY.md ("Limits") over real sockets: connection caps from several
/// loopback addresses, the message rate with one flooder among 100 clients, the UDP rate per
/// source, the byte rate, the HTTP request timeout and the idle timeout on lines and WebSocket.
@Suite(.onTestThreads)
struct LimitsTests {
  private func loopback(_ n: Int) throws -> SocketAddress { try SocketAddress(host: "127.0.0.\(n)", port: 0) }

  @Test func perAddressCapRefusesEveryDialectFromThatAddressOnly() async throws {
    try await withServer({ $0.limits.maxConnectionsPerIP = 3 }) { server in
      var a = try (0..<3).map { _ in try LineClient(server.tcpAddress!, from: loopback(2)) }
      for (i, c) in a.enumerated() { try c.join(as: "a\(i)") }
      // A fourth line connection from 127.0.0.2 is told why, then closed.
      let over = try LineClient(server.tcpAddress!, from: loopback(2))
      try over.expectLine("! too many connections (3 per address)")
      #expect(throws: (any Error).self) { try over.readLine(timeout: .seconds(5)) }
      #expect(over.closedByPeer)
      // HTTP and a WebSocket upgrade from the same address: 503 with a body.
      let http = try LineClient(server.httpAddress!, from: loopback(2))
      try http.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
      try http.expectLine { $0.hasPrefix("HTTP/1.1 503") }
      try http.expectLine { $0.hasPrefix("too many connections") }
      let upgrade = try LineClient(server.httpAddress!, from: loopback(2))
      try upgrade.send(
        "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
          + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
      try upgrade.expectLine { $0.hasPrefix("HTTP/1.1 503") }
      // Another address is not affected.
      let b = try (0..<3).map { _ in try LineClient(server.tcpAddress!, from: loopback(3)) }
      for (i, c) in b.enumerated() { try c.join(as: "b\(i)") }
      // A closed connection frees its slot.
      a.removeLast()
      try await eventually("slot freed") {
        guard let again = try? LineClient(server.tcpAddress!, from: loopback(2)) else { return false }
        do {
          try again.join(as: "again", timeout: .seconds(2))
          return true
        } catch { return false }
      }
      #expect(server.metrics.limits.refusedPerIP.load(ordering: .relaxed) >= 3)
      // /metrics shows it.
      let metrics = try LineClient(server.httpAddress!, from: loopback(4))
      try metrics.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
      let row = try metrics.expectLine { $0.hasPrefix("switchboard_connections_refused_per_ip_total ") }
      #expect(Int(row.split(separator: " ").last ?? "") ?? 0 >= 3)
      _ = (a, b)
    }
  }

  @Test func totalCapRefusesTheNextConnection() async throws {
    try await withServer({ $0.limits.maxConnections = 2 }) { server in
      let first = try LineClient(server.tcpAddress!)
      try first.join(as: "one")
      let second = try LineClient(server.tcpAddress!, from: loopback(5))
      try second.join(as: "two")
      let third = try LineClient(server.tcpAddress!, from: loopback(6))
      try third.expectLine("! too many connections (this server takes 2)")
      #expect(server.metrics.limits.refusedTotal.load(ordering: .relaxed) == 1)
    }
  }

  @Test func oneFlooderAmongAHundredIsThrottledThenClosedAndEveryNormalMessageArrives() async throws {
    let rate = 50
    let normals = 100
    let rounds = 5
    func run(withFlooder: Bool) async throws -> Duration {
      try await withServer({ $0.limits.maxMessageRate = rate }) { server in
        let clients = try (0..<normals).map { _ in try LineClient(server.tcpAddress!) }
        for (i, c) in clients.enumerated() { try c.sendLine("iam:n\(i)") }
        try await eventually("all announced") { server.hub.who(room: "lobby").count == normals }
        let flooder = withFlooder ? try LineClient(server.tcpAddress!) : nil
        if let flooder { try flooder.join(as: "flooder") }
        let start = ContinuousClock.now
        var latencies: [Duration] = []
        for round in 0..<rounds {
          if let flooder {
            // Far over the rate; sends may fail once the server closed it.
            try? flooder.send(String(repeating: "flood\n", count: 4 * rate))
          }
          let sentAt = ContinuousClock.now - start
          for (i, c) in clients.enumerated() { try c.sendLine("m \(i) \(round)") }
          for (i, c) in clients.enumerated() {
            var expected = Set((0..<normals).filter { $0 != i }.map { "n\($0): m \($0) \(round)" })
            while !expected.isEmpty {
              let line = try c.readLine(timeout: .seconds(20))
              if expected.remove(line) != nil { latencies.append(ContinuousClock.now - start - sentAt) }
            }
          }
        }
        if let flooder {
          try flooder.expectLine { $0.hasPrefix("! slow down (limit \(rate) messages a second)") }
          try flooder.expectLine("! too many messages, disconnected")
          #expect(throws: (any Error).self) { try flooder.readLine(timeout: .seconds(5)) }
          #expect(flooder.closedByPeer)
          #expect(server.metrics.limits.rateLimitCloses.load(ordering: .relaxed) == 1)
          #expect(server.metrics.limits.messagesRateLimited.load(ordering: .relaxed) >= 2 * rate)
        }
        #expect(latencies.count == normals * (normals - 1) * rounds)
        latencies.sort()
        return latencies[latencies.count * 99 / 100]
      }
    }
    let quiet = try await run(withFlooder: false)
    let flooded = try await run(withFlooder: true)
    print("normal clients' p99 (send to read, one reader thread): \(quiet) alone, \(flooded) beside a flooder")
  }

  @Test func aWebSocketFlooderGetsErrorsThenPolicyViolation() async throws {
    try await withServer({ $0.limits.maxMessageRate = 5 }) { server in
      let ws = try WebSocketTestClient(server.httpAddress!, path: "/?name=flood")
      for _ in 0..<40 { try? ws.send(text: "{\"type\":\"message\",\"text\":\"x\"}") }
      var sawError = false
      var code: WebSocketCloseCode?
      let deadline = ContinuousClock.now + .seconds(10)
      while code == nil, ContinuousClock.now < deadline {
        switch try ws.next(timeout: .seconds(5)) {
        case .text(let text): if text.contains("rate_limited") { sawError = true }
        case .close(let c, _): code = c
        default: break
        }
      }
      #expect(sawError)
      #expect(code == .policyViolation)
    }
  }

  @Test func aUDPFloodFromOneAddressDoesNotStarveAnother() async throws {
    try await withServer({ $0.limits.maxDatagramRate = 100 }) { server in
      let flooder = try DatagramPeer(server.udpAddress!, from: loopback(7))
      let normal = try DatagramPeer(server.udpAddress!, from: loopback(8))
      for k in 0..<50 {
        for _ in 0..<100 { try flooder.send("flood") }
        // UDP may drop it (the flood can fill the server's receive buffer while a loaded
        // machine keeps the loop from reading): the sender tries again, as a real one
        // would, and must be answered within a few tries. An answer to an earlier try is
        // skipped by the next round's match.
        var answered = false
        for _ in 0..<10 where !answered {
          try normal.send("m\(k)")
          answered = (try? normal.expect(timeout: .seconds(1)) { $0 == "Server received: m\(k)\n" }) != nil
        }
        #expect(answered, "m\(k) never answered")
      }
      #expect(server.metrics.limits.datagramsRateLimited.load(ordering: .relaxed) > 1000)
    }
  }

  @Test func anHTTPRequestThatNeverCompletesGets408() async throws {
    try await withServer({ $0.limits.httpRequestTimeout = .seconds(1) }) { server in
      let slow = try LineClient(server.httpAddress!)
      try slow.send("GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")
      try slow.expectLine(timeout: .seconds(10)) { $0.hasPrefix("HTTP/1.1 408") }
      // The same cut-off for an HTTP request that arrived on the line port.
      let sniffed = try LineClient(server.tcpAddress!)
      try sniffed.send("GET / HTTP/1.1\r\nHost: x\r\n")
      try sniffed.expectLine(timeout: .seconds(10)) { $0.hasPrefix("HTTP/1.1 408") }
      #expect(server.metrics.limits.httpRequestTimeouts.load(ordering: .relaxed) == 2)
      // A complete request is still answered.
      let ok = try LineClient(server.httpAddress!)
      try ok.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
      try ok.expectLine { $0.hasPrefix("HTTP/1.1 200") }
    }
  }

  @Test func aSilentLineClientIsClosedOnlyWithAnIdleTimeout() async throws {
    try await withServer({ $0.limits.idleTimeout = .milliseconds(800) }) { server in
      let talker = try LineClient(server.tcpAddress!)
      try talker.join(as: "talker")
      let silent = try LineClient(server.tcpAddress!)
      try silent.expectLine(timeout: .seconds(10)) { $0 == "! idle too long, disconnected" }
      #expect(server.metrics.limits.idleTimeouts.load(ordering: .relaxed) >= 1)
    }
  }

  @Test func aLineClientOverTheByteRateIsToldThenClosed() async throws {
    try await withServer({ $0.limits.maxByteRate = 1000 }) { server in
      let observer = try LineClient(server.tcpAddress!)
      try observer.join(as: "observer")
      let talker = try LineClient(server.tcpAddress!)
      try talker.join(as: "talker")
      // Within the rate: delivered.
      try talker.sendLine("short")
      try observer.expectLine("talker: short")
      // 100 lines of 500 bytes at once: 50 kB against 1000 bytes a second, burst 2000.
      let line = String(repeating: "x", count: 499)
      try? talker.send(String(repeating: line + "\n", count: 100))
      try talker.expectLine("! slow down (limit 1000 bytes a second)")
      try talker.expectLine("! too many bytes, disconnected")
      try talker.expectClosed(timeout: .seconds(10))
      #expect(server.metrics.limits.byteRateLimitCloses.load(ordering: .relaxed) == 1)
      #expect(server.metrics.limits.bytesRateLimited.load(ordering: .relaxed) >= 20)
      // What passed the bucket arrived; the refused lines did not (each was answered). The
      // fan-out to the observer may trail the talker's own answers on a loaded machine: wait
      // for the three a 2000-byte burst always lets through, then for any more.
      var delivered: [String] = []
      for _ in 0..<3 { delivered.append(try observer.expectLine { $0.hasPrefix("talker: x") }) }
      delivered += observer.expectSilence(for: .milliseconds(300)).filter { $0.hasPrefix("talker: x") }
      #expect(delivered.count <= 6, "\(delivered.count) lines passed a 2000-byte burst")
      let metrics = try LineClient(server.httpAddress!)
      try metrics.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
      try metrics.expectLine("switchboard_byte_rate_limit_closes_total 1")
    }
  }

  @Test func aWebSocketClientOverTheByteRateGetsErrorsThenPolicyViolation() async throws {
    try await withServer({ $0.limits.maxByteRate = 2000 }) { server in
      let ws = try WebSocketTestClient(server.httpAddress!, path: "/?name=bulk")
      let text = String(repeating: "y", count: 1000)
      for _ in 0..<60 { try? ws.send(text: #"{"type":"message","data":{"text":"\#(text)"}}"#) }
      var refusals = 0
      var close: (WebSocketCloseCode?, String)?
      let deadline = ContinuousClock.now + .seconds(10)
      while close == nil, ContinuousClock.now < deadline {
        switch try ws.next(timeout: .seconds(5)) {
        case .text(let t): if t.contains("rate_limited") && t.contains("2000 bytes a second") { refusals += 1 }
        case .close(let c, let reason): close = (c, reason)
        default: break
        }
      }
      #expect(refusals >= 10)
      #expect(close?.0 == .policyViolation)
      #expect(close?.1 == "byte rate limit")
      #expect(server.metrics.limits.byteRateLimitCloses.load(ordering: .relaxed) == 1)
    }
  }

  @Test func aWebSocketThatSendsNoDataIsClosedByTheIdleTimeoutPingsOrNot() async throws {
    try await withServer({ $0.limits.idleTimeout = .milliseconds(1500) }) { server in
      // Read before the quiet client connects: its idle time starts with its connection, and
      // the talker's handshake may take a while on a loaded machine.
      let started = ContinuousClock.now
      let quiet = try WebSocketTestClient(server.httpAddress!, path: "/?name=quiet")
      let talker = try WebSocketTestClient(server.httpAddress!, path: "/?name=talker")
      // The talker sends a message every 400 ms and stays; the quiet one only pings.
      var quietClose: (WebSocketCloseCode?, String)?
      var quietError = false
      while quietClose == nil, ContinuousClock.now - started < .seconds(10) {
        try talker.send(text: #"{"type":"message","data":{"text":"still here"}}"#)
        try quiet.sendRaw([0x89, 0x80, 0, 0, 0, 0])  // a masked ping, empty
        let until = ContinuousClock.now + .milliseconds(400)
        while quietClose == nil, ContinuousClock.now < until {
          guard let action = try? quiet.next(timeout: until - ContinuousClock.now) else { break }
          switch action {
          case .text(let t): if t.contains("idle_timeout") { quietError = true }
          case .close(let c, let reason): quietClose = (c, reason)
          default: break
          }
        }
      }
      let elapsed = ContinuousClock.now - started
      #expect(quietClose?.0 == .policyViolation)
      #expect(quietClose?.1 == "idle too long")
      #expect(quietError)
      #expect(elapsed >= .milliseconds(1400), "closed after \(elapsed), before the timeout")
      #expect(server.metrics.limits.idleTimeouts.load(ordering: .relaxed) == 1)
      // The talker is still there.
      try talker.send(text: #"{"type":"message","data":{"text":"after"}}"#)
      _ = try talker.nextJSON(type: "message") { ($0["data"] as? [String: Any])?["text"] as? String == "after" }
    }
  }
}
