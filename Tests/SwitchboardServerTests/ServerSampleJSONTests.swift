import Foundation
import SwitchboardChat
import Testing

@testable import SwitchboardServer

/// A node's sample as the others read it under `--redis` (ServerSample+JSON.swift,
/// ServerCore+Nodes.swift): the round trip, the decoder's limits, and which nodes count as
/// live or gone.
@Suite(.onTestThreads)
struct ServerSampleJSONTests {
  static func sample(node: String = "n1", time: Int64 = 1_000_000) -> ServerSample {
    ServerSample(
      time: time, node: node, version: "1.2.3", uptimeSeconds: 42,
      connections: ["tcp": 1, "tls": 2, "udp": 3, "ws": 4, "wss": 5], members: 15, rooms: 2,
      messagesPerSecond: 12.5, deliveriesPerSecond: 125, lagP50Ms: 0.5, lagP99Ms: 2.5, heapBytes: 1 << 20,
      residentBytes: nil, roomRates: ["lobby": 3])
  }

  private func bytes(_ sample: ServerSample) -> [UInt8] { Array(sample.json.encoded().utf8) }

  @Test func aSampleSurvivesTheRoundTripWithoutItsRoomRates() throws {
    var expected = Self.sample()
    expected.roomRates = [:]
    #expect(try ServerSample(json: bytes(Self.sample())) == expected)
    var resident = Self.sample()
    resident.residentBytes = 7 << 20
    #expect(try ServerSample(json: bytes(resident)).residentBytes == 7 << 20)
  }

  @Test(arguments: [
    "", "[]", "{}", "null", #"{"time":"x"}"#, String(repeating: "[", count: 100),
    String(repeating: " ", count: NodeStatusLimits.maxBytes + 1),
  ])
  func badBytesAreRefused(_ text: String) {
    #expect(throws: ServerSample.DecodingError.self) { try ServerSample(json: Array(text.utf8)) }
  }

  @Test func aWrongFieldIsRefused() throws {
    func with(_ key: String, _ value: String) -> [UInt8] {
      let text = Self.sample().json.encoded()
      // Replace the field's value: each is followed by "," or "}".
      let start = text.range(of: "\"\(key)\":")!.upperBound
      let end = text[start...].firstIndex { $0 == "," || $0 == "}" }!
      return Array((text[..<start] + value + text[end...]).utf8)
    }
    #expect(try ServerSample(json: with("members", "15")).members == 15)
    for (key, value) in [
      ("members", "-1"), ("members", "1.5"), ("members", "1e300"), ("time", "null"), ("node", "7"),
      ("residentBytes", "\"x\""), ("lagP99Ms", "-2"),
    ] {
      #expect(throws: ServerSample.DecodingError.self, "\(key): \(value)") {
        try ServerSample(json: with(key, value))
      }
    }
    let longNode = String(repeating: "n", count: ServerSample.maxFieldLength + 1)
    #expect(throws: ServerSample.DecodingError.self) {
      try ServerSample(json: with("node", "\"\(longNode)\""))
    }
  }

  /// The committed fuzz seeds (Tests/Fuzz/node-sample/corpus) decode or are refused, and
  /// what decodes survives the round trip.
  @Test func fuzzSeedsDecodeOrAreRefused() throws {
    let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Fuzz/node-sample/corpus")
    let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
    #expect(files.count >= 10)
    var decoded = 0
    for file in files {
      let bytes = Array(try Data(contentsOf: directory.appendingPathComponent(file)))
      guard let sample = try? ServerSample(json: bytes) else { continue }
      decoded += 1
      #expect(try ServerSample(json: self.bytes(sample)) == sample, "\(file)")
    }
    #expect(decoded >= 3 && decoded < files.count)
  }

  @Test func liveNodesAreRecentOnesByIDAndOldOrBadOnesAreForgotten() {
    let now: Int64 = 10_000_000
    let statuses: [NodeStatus] = [
      ("self", bytes(Self.sample(node: "self", time: now))),
      ("c", bytes(Self.sample(node: "c", time: now - 1_000))),
      ("a", bytes(Self.sample(node: "a", time: now - 5_000))),
      ("quiet", bytes(Self.sample(node: "quiet", time: now - 6_000))),
      ("gone", bytes(Self.sample(node: "gone", time: now - 60_000))),
      ("garbage", Array("{".utf8)),
      ("impostor", bytes(Self.sample(node: "someone-else", time: now))),
    ]
    let (live, gone) = ServerCore.liveNodes(statuses, except: "self", now: now)
    #expect(live.map(\.node) == ["a", "c"])
    #expect(gone.sorted() == ["garbage", "gone", "impostor"])
  }
}
