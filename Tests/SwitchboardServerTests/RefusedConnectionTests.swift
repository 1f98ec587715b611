import Foundation
import SwitchboardIO
import SwitchboardTestSupport
import Testing

/// Connections refused by the caps against the real binary: a connect loop from one address
/// that never reads holds a bounded number of the server's descriptors and writes a bounded
/// number of log lines.
@Suite(
  .onTestThreads, .enabled(ifAvailable: Executables.switchboard != nil, "build the switchboard executable first"),
  .enabled(ifAvailable: ProcFS.available, ProcFS.needed)
)
struct RefusedConnectionTests {
  private func metric(_ name: String, port: Int) throws -> Int? {
    let c = try LineClient(SocketAddress(host: "127.0.0.1", port: port))
    try c.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    while c.fill(timeout: .seconds(2)) {}
    let text = String(decoding: c.bufferedBytes, as: UTF8.self)
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + " ") }) else {
      return nil
    }
    return Int(line.split(separator: " ")[1])
  }

  @Test func aConnectLoopThatNeverReadsStaysBoundedInDescriptorsAndLogLines() async throws {
    let server = try await ServeProcess.start(["--ephemeral", "--loops", "1", "--max-connections-per-ip", "2"], listeners: [.tcp, .http])
    defer { server.stop() }
    let flooder = try SocketAddress(host: "127.0.0.2", port: 0)
    let line = try SocketAddress(host: "127.0.0.1", port: server.tcp)
    // The address's two slots, taken and in use.
    let held = try (0..<2).map { _ in try LineClient(line, from: flooder) }
    for c in held {
      try c.sendLine("/who")
      try c.expectLine { $0.hasPrefix("* in lobby") }
    }
    let baseline = try ProcFS.openDescriptors(server.pid)

    // Connects that never read and never close, faster than the 2 s grace time runs out.
    let attempts = 600
    var refused: [LineClient] = []
    var most = baseline
    for i in 0..<attempts {
      refused.append(try LineClient(line, from: flooder))
      if i % 20 == 0 { most = max(most, try ProcFS.openDescriptors(server.pid)) }
    }
    try await eventually(timeout: .seconds(20), "every refusal counted") {
      try metric("switchboard_connections_refused_per_ip_total", port: server.http) == attempts
    }
    let settled = try ProcFS.openDescriptors(server.pid)
    // Once every attempt was answered (well within the 2 s grace time of the first): at
    // most 32 lingering refusals, and a little slack for the metrics request.
    #expect(settled <= baseline + 32 + 8, "descriptors went from \(baseline) to \(settled)")
    // Meanwhile, besides those: what one wakeup of the listener accepts (up to 256) before
    // the loop answers and closes them.
    #expect(most <= baseline + 32 + 256 + 8, "descriptors went from \(baseline) to \(most) at most")
    #expect(try metric("switchboard_refused_connections_lingering", port: server.http) ?? 99 <= 32)
    #expect(try metric("switchboard_refused_connections_closed_at_once_total", port: server.http) ?? 0 > 0)
    let logged = server.stderr.components(separatedBy: "refused a connection").count - 1
    // Ten at once, then one every ten seconds while the loop lasts.
    #expect(logged >= 1 && logged <= 13, "\(logged) log lines")
    #expect(
      try metric("switchboard_refused_log_lines_suppressed_total", port: server.http) ?? 0 >= attempts - 13)
    // Every refused peer got its answer or its close; the held ones are still served.
    #expect(try refused[attempts - 1].readLine() == "! too many connections (2 per address)")
    try held[0].sendLine("/who")
    try held[0].expectLine { $0.hasPrefix("* in lobby") }
    withExtendedLifetime(refused) {}
  }
}
