import SwitchboardChat
import SwitchboardServer
import SwitchboardTestSupport
import SwitchboardWire
import Synchronization
import Testing

/// A local broker whose health the test sets: what `/readyz` reports for a broker that
/// lost its shared server, without one.
private final class HealthBroker: RoomBroker {
  let local = LocalRoomBroker(retention: 100)
  let current = Mutex(BrokerHealth.ready)

  var health: BrokerHealth { current.withLock { $0 } }
  func attach(_ sink: any RoomBrokerSink) { local.attach(sink) }
  func openRoom(
    _ room: String, recent limit: Int, on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<RoomSnapshot, BrokerError>) -> Void
  ) { local.openRoom(room, recent: limit, on: executor, completion: completion) }
  func publish(
    _ draft: MessageDraft, on executor: (any ShardExecutor)?,
    completion: (@Sendable (Result<PublishReceipt, BrokerError>) -> Void)?
  ) { local.publish(draft, on: executor, completion: completion) }
  func history(
    room: String, after id: UInt64, limit: Int, on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<[ChatMessage], BrokerError>) -> Void
  ) { local.history(room: room, after: id, limit: limit, on: executor, completion: completion) }
  func presenceChanged(_ event: PresenceEvent, member: MemberID) { local.presenceChanged(event, member: member) }
  func remoteMembers(
    room: String, on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<[String], BrokerError>) -> Void
  ) { local.remoteMembers(room: room, on: executor, completion: completion) }
  func close() { local.close() }
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
