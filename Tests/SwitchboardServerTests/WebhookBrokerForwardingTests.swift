import Foundation
import Testing

/// `WebhookBroker` wraps the room broker and stands between it and the hub, so it must pass
/// on every requirement of `RoomBroker` and `RoomBrokerSink`: one it leaves out falls to the
/// protocol's default, which answers as a lone node would, silently (a room list without the
/// other nodes', a disconnect order never sent). Read from the sources, so a requirement
/// added later is checked too.
@Suite(.onTestThreads) struct WebhookBrokerForwardingTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// The names of the `func` and `var` requirements declared in `protocol NAME` of `file`.
  static func requirements(of protocolName: String, in file: String) throws -> Set<String> {
    let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
    let start = try #require(text.range(of: "public protocol \(protocolName)"))
    // The declaration ends at the first brace in the first column.
    let end = text[start.upperBound...].range(of: "\n}\n")?.lowerBound ?? text.endIndex
    var names: Set<String> = []
    for line in text[start.upperBound..<end].split(separator: "\n") {
      let words = line.split(separator: " ")
      guard let keyword = words.first, keyword == "func" || keyword == "var", words.count > 1 else { continue }
      names.insert(String(words[1].prefix { $0 != "(" && $0 != ":" }))
    }
    return names
  }

  @Test func everyRequirementIsForwarded() throws {
    let wrapper = try String(
      contentsOf: Self.root.appendingPathComponent("Sources/SwitchboardServer/WebhookBroker.swift"), encoding: .utf8)
    let broker = try Self.requirements(of: "RoomBroker", in: "Sources/SwitchboardChat/RoomBroker.swift")
    let sink = try Self.requirements(of: "RoomBrokerSink", in: "Sources/SwitchboardChat/RoomBrokerSink.swift")
    #expect(broker.contains("openRooms") && broker.contains("disconnect") && sink.contains("remoteDisconnect"))
    #expect(broker.isSuperset(of: ["sharesNodeStatus", "storeNodeStatus", "nodeStatuses", "forgetNodeStatuses"]))
    let missing = broker.union(sink).filter {
      !wrapper.contains("public func \($0)(") && !wrapper.contains("public var \($0):")
    }
    #expect(missing.isEmpty, "WebhookBroker does not forward \(missing.sorted())")
  }
}
