import SwitchboardIO
import SwitchboardTestSupport
import Testing

@testable import SwitchboardServer

/// `/metrics`' lines for the admin console (ServerMetrics+Console.swift): connections by
/// transport, deliveries, resident memory and the busiest rooms, with a bounded label set.
@Suite(.onTestThreads)
struct ConsoleMetricsTests {
  private typealias Room = ServerMetrics.BusyRoom

  @Test func theBusiestRoomsAreByRateThenMembersAndAtMostTen() {
    var rooms = (0..<30).map { Room(name: "r\($0)", messagesPerSecond: Double($0 % 15), members: $0) }
    rooms.append(Room(name: "idle", messagesPerSecond: 0, members: 0))
    let busiest = ServerMetrics.busiest(rooms)
    #expect(busiest.count == 10)
    // r29 and r14 share 14 msg/s: the one with more members first.
    #expect(busiest.prefix(4).map(\.name) == ["r29", "r14", "r28", "r13"])
    #expect(!ServerMetrics.busiest(rooms, limit: 100).contains { $0.name == "idle" })
    // Members alone count: a quiet room with people in it is listed.
    #expect(ServerMetrics.busiest([Room(name: "quiet", messagesPerSecond: 0, members: 2)]).count == 1)
  }

  @Test func labelValuesAreEscaped() {
    #expect(ServerMetrics.labelValue("lobby") == "lobby")
    #expect(ServerMetrics.labelValue(#"a"b\c"#) == #"a\"b\\c"#)
    #expect(ServerMetrics.labelValue("two\nlines") == #"two\nlines"#)
  }

  @Test func metricsShowConnectionsByTransportDeliveriesAndTheBusyRoom() async throws {
    try await withServer { server in
      func metrics() throws -> String {
        let answer = try apiRequest(server.httpAddress!, "GET", "/metrics", key: nil)
        return String(decoding: answer.body, as: UTF8.self)
      }
      let tcp = try LineClient(server.tcpAddress!)
      try tcp.join(as: "liner")
      let ws = try WebSocketTestClient(server.httpAddress!)
      try ws.send(text: "webber")
      _ = try ws.nextJSON(type: "color")
      let text = try metrics()
      #expect(text.contains("switchboard_connections_open{transport=\"tcp\"} 1\n"))
      #expect(text.contains("switchboard_connections_open{transport=\"ws\"} 1\n"))
      for transport in ["tls", "udp", "wss"] {
        #expect(text.contains("switchboard_connections_open{transport=\"\(transport)\"} 0\n"))
      }
      #expect(text.contains("# TYPE switchboard_deliveries_total counter\n"))
      #if os(Linux)
        #expect(text.contains("switchboard_resident_bytes "))
      #endif
      for i in 0..<5 { try tcp.send("message \(i)\n") }
      // Two members, five messages: ten deliveries; the lobby listed once a sample saw it.
      try await eventually { try metrics().contains("switchboard_deliveries_total 10\n") }
      try await eventually { try metrics().contains("switchboard_room_members{room=\"lobby\"} 2\n") }
      #expect(try metrics().contains("switchboard_room_messages_per_second{room=\"lobby\"} "))
    }
  }
}
