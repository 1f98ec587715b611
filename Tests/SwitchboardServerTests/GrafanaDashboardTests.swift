import Foundation
import SwitchboardIO
import SwitchboardTestSupport
import Testing

@testable import SwitchboardServer

/// deploy/grafana/switchboard.json: a dashboard Grafana can import (its datasource an input
/// the importer picks), whose every query names metrics a real server's `/metrics` has.
@Suite(.onTestThreads)
struct GrafanaDashboardTests {
  static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("deploy/grafana/switchboard.json")

  private func dashboard() throws -> [String: Any] {
    let data = try Data(contentsOf: Self.file)
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
  }

  /// Every `expr` of every panel.
  private func expressions(_ dashboard: [String: Any]) -> [String] {
    let panels = dashboard["panels"] as? [[String: Any]] ?? []
    return panels.flatMap { panel in
      (panel["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String }
    }
  }

  /// The metric names in a PromQL expression: every `switchboard_…` word.
  private func metricNames(_ expression: String) -> Set<String> {
    var names: Set<String> = []
    var rest = expression[...]
    while let start = rest.range(of: "switchboard_") {
      let name = rest[start.lowerBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
      names.insert(String(name))
      rest = rest[name.endIndex...]
    }
    return names
  }

  @Test func theDashboardIsImportable() throws {
    let dashboard = try dashboard()
    #expect((dashboard["schemaVersion"] as? Int ?? 0) >= 36)
    let inputs = dashboard["__inputs"] as? [[String: Any]] ?? []
    #expect(
      inputs.contains {
        $0["name"] as? String == "DS_PROMETHEUS" && $0["pluginId"] as? String == "prometheus"
      })
    let panels = dashboard["panels"] as? [[String: Any]] ?? []
    #expect(panels.count >= 6)
    for panel in panels {
      let source = panel["datasource"] as? [String: Any]
      #expect(source?["uid"] as? String == "${DS_PROMETHEUS}", "\(panel["title"] ?? "")")
    }
    let all = expressions(dashboard).joined(separator: "\n")
    for wanted in [
      "switchboard_messages_published_total", "switchboard_deliveries_total", "switchboard_connections_open",
      "histogram_quantile(0.99", "switchboard_loop_lag_seconds_bucket", "switchboard_resident_bytes",
      "switchboard_room_messages_per_second",
    ] {
      #expect(all.contains(wanted), "no panel uses \(wanted)")
    }
  }

  @Test func everyMetricItQueriesIsInARealServersMetrics() async throws {
    let names = expressions(try dashboard()).reduce(into: Set<String>()) { $0.formUnion(metricNames($1)) }
    #expect(names.count >= 7)
    try await withServer { server in
      // A member in a room, so that the per-room lines are there once a sample saw it.
      let member = try LineClient(server.tcpAddress!)
      try member.join(as: "someone")
      func scrape() throws -> String {
        String(decoding: try apiRequest(server.httpAddress!, "GET", "/metrics", key: nil).body, as: UTF8.self)
      }
      try await eventually { try scrape().contains("switchboard_room_members{") }
      // The names of the samples (not the comments): up to a label's brace or the value.
      let scraped = Set(
        try scrape().split(separator: "\n").filter { !$0.hasPrefix("#") }.map {
          String($0.prefix { $0 != "{" && $0 != " " })
        })
      // Resident memory is there only where /proc is.
      let absent: Set<String> = ProcessMemory.residentBytes == nil ? ["switchboard_resident_bytes"] : []
      let missing = names.subtracting(absent).subtracting(scraped)
      #expect(missing.isEmpty, "the dashboard queries \(missing.sorted()), which /metrics lacks")
      withExtendedLifetime(member) {}
    }
  }
}
