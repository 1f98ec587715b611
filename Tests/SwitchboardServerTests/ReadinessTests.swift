import SwitchboardChat
import SwitchboardServer
import SwitchboardTestSupport
import SwitchboardWire
import Synchronization
import Testing

/// A local broker whose health the test sets: what `/readyz` reports for a broker that
/// lost its shared server, without one.
private final class HealthBroker: ForwardingBroker, @unchecked Sendable {
  let current = Mutex(BrokerHealth.ready)

  override var health: BrokerHealth { current.withLock { $0 } }
}

/// `GET /readyz`: 200 with the local broker, 503 with the reason and since when while the
/// broker is unavailable, 200 again when it is back.
@Suite(.onTestThreads)
struct ReadinessTests {
  private func get(_ server: ChatServer, _ path: String) throws -> (status: String, body: String) {
    let client = try LineClient(server.httpAddress!)
    try client.send("GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    let status = try client.readLine()
    var line = status
    while !line.isEmpty && line != "\r" { line = try client.readLine() }
    return (status, try client.readLine())
  }

  @Test func theLocalBrokerIsAlwaysReady() async throws {
    try await withServer { server in
      let answer = try get(server, "/readyz")
      #expect(answer.status == "HTTP/1.1 200 OK\r")
      #expect(answer.body == "ready")
    }
  }

  @Test func anUnavailableBrokerAnswers503WithTheReasonUntilItIsBack() async throws {
    let broker = HealthBroker()
    try await withServer({ $0.broker = { _ in broker } }) { server in
      broker.current.withLock { $0 = .unavailable(since: 1_764_590_400_000, reason: "redis unreachable") }
      let down = try get(server, "/readyz")
      #expect(down.status == "HTTP/1.1 503 Service Unavailable\r")
      #expect(down.body == "not ready: redis unreachable since 2025-12-01T12:00:00.000Z", "\(down.body)")
      #expect(try get(server, "/healthz").status == "HTTP/1.1 200 OK\r", "liveness is not readiness")
      broker.current.withLock { $0 = .ready }
      #expect(try get(server, "/readyz").body == "ready")
    }
  }
}
