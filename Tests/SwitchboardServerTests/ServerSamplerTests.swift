import SwitchboardIO
import SwitchboardTestSupport
import Synchronization
import Testing

@testable import SwitchboardServer

/// The admin console's numbers (ServerSampler.swift): the arithmetic of rates and lag
/// quantiles alone, and a real server's sample following real clients of each transport.
@Suite(.onTestThreads)
struct ServerSamplerTests {
  private let bounds = MetricsHistogram.defaultBounds

  @Test func aQuantileIsTheUpperBoundOfItsBucket() {
    // 10 samples: 5 in ≤ 0.5 ms, 4 in ≤ 1 ms, 1 in ≤ 25 ms.
    var buckets = [Int](repeating: 0, count: bounds.count + 1)
    buckets[0] = 5
    buckets[1] = 4
    buckets[5] = 1
    #expect(ServerSampleWindow.quantileMilliseconds(0.5, buckets: buckets, bounds: bounds) == 0.5)
    #expect(ServerSampleWindow.quantileMilliseconds(0.6, buckets: buckets, bounds: bounds) == 1)
    #expect(ServerSampleWindow.quantileMilliseconds(0.99, buckets: buckets, bounds: bounds) == 25)
  }

  @Test func aQuantileOfNothingIsZeroAndOfTheOverflowIsTheLastBound() {
    let empty = [Int](repeating: 0, count: bounds.count + 1)
    #expect(ServerSampleWindow.quantileMilliseconds(0.99, buckets: empty, bounds: bounds) == 0)
    var overflow = empty
    overflow[bounds.count] = 3
    #expect(ServerSampleWindow.quantileMilliseconds(0.5, buckets: overflow, bounds: bounds) == 2500)
  }

  @Test func ratesComeFromDeltasOverTheElapsedTime() {
    #expect(ServerSampleWindow.rate(from: 100, to: 350, nanoseconds: 500_000_000) == 500)
    #expect(ServerSampleWindow.rate(from: 100, to: 100, nanoseconds: 1_000_000_000) == 0)
    // A counter that went back (a room's new epoch) and no time at all are 0, not negative or infinite.
    #expect(ServerSampleWindow.rate(from: 100, to: 50, nanoseconds: 1_000_000_000) == 0)
    #expect(ServerSampleWindow.rate(from: 1, to: 5, nanoseconds: 0) == 0)
  }

  @Test func theWindowSubtractsThePreviousReading() {
    var window = ServerSampleWindow()
    var lag = [Int](repeating: 0, count: bounds.count + 1)
    lag[0] = 1000  // a lifetime of fast ticks, before the window
    let first = window.advance(
      to: .init(nanoseconds: 1_000_000_000, messages: 10, deliveries: 40, lagBuckets: lag, lastIDs: ["a": 5]),
      bounds: bounds)
    #expect(first.messagesPerSecond == 0)
    #expect(first.roomRates == ["a": 0])
    lag[6] += 10  // ten ticks of ≤ 50 ms in this second
    let second = window.advance(
      to: .init(
        nanoseconds: 2_000_000_000, messages: 30, deliveries: 100, lagBuckets: lag,
        lastIDs: ["a": 9, "b": 70]),
      bounds: bounds)
    #expect(second.messagesPerSecond == 20)
    #expect(second.deliveriesPerSecond == 60)
    #expect(second.lagP50Ms == 50)
    #expect(second.lagP99Ms == 50)
    // "b" is new: no rate yet, not 70 messages in a second.
    #expect(second.roomRates == ["a": 4, "b": 0])
  }

  @Test func theHistoryKeepsTheLast600OldestFirst() {
    var ring = SampleRing(capacity: ServerSampler.capacity)
    for i in 0..<650 { ring.append(Self.sample(time: Int64(i))) }
    let times = ring.elements.map(\.time)
    #expect(times.count == 600)
    #expect(times.first == 50)
    #expect(times.last == 649)
    #expect(times == times.sorted())
  }

  @Test func theSampleFollowsTCPWebSocketAndUDPClientsComingAndGoing() async throws {
    try await withServer { server in
      let sampler = server.core.sampler
      func connections() -> [String: Int] { sampler.latest?.connections ?? [:] }
      try await eventually { connections() == ["tcp": 0, "tls": 0, "udp": 0, "ws": 0, "wss": 0] }
      var tcp: LineClient? = try LineClient(server.tcpAddress!)
      try tcp?.join(as: "liner")
      var ws: WebSocketTestClient? = try WebSocketTestClient(server.httpAddress!)
      try ws?.send(text: "webber")
      _ = try ws?.nextJSON(type: "color")
      let udp = try DatagramPeer(server.udpAddress!)
      try udp.prove()
      try await eventually { connections() == ["tcp": 1, "tls": 0, "udp": 1, "ws": 1, "wss": 0] }
      try await eventually { sampler.latest?.members == 3 && sampler.latest?.rooms == 1 }
      // Three members, one message: three deliveries (the author hears its own line too).
      let before = server.hub.deliveries
      try tcp?.send("hello\n")
      try await eventually { server.hub.deliveries - before == 3 }
      #expect(sampler.latest?.roomRates.keys.contains("lobby") == true)
      #expect(sampler.history().count >= 2)
      #expect(sampler.history().allSatisfy { $0.roomRates.isEmpty })
      try udp.send("/quit")
      ws = nil
      try await eventually { connections() == ["tcp": 1, "tls": 0, "udp": 0, "ws": 0, "wss": 0] }
      tcp = nil
      try await eventually { connections() == ["tcp": 0, "tls": 0, "udp": 0, "ws": 0, "wss": 0] }
    }
  }

  @Test func anObserverIsToldOfEachSampleUntilItStops() async throws {
    try await withServer { server in
      let sampler = server.core.sampler
      let seen = SeenCount()
      let token = sampler.observe { _ in seen.count.add(1, ordering: .relaxed) }
      try await eventually { seen.count.load(ordering: .relaxed) >= 2 }
      sampler.stopObserving(token)
      let stopped = seen.count.load(ordering: .relaxed)
      let later = sampler.latest?.time ?? 0
      try await eventually { (sampler.latest?.time ?? 0) > later + 1500 }
      // One may have been on its way when it stopped; none after that.
      #expect(seen.count.load(ordering: .relaxed) <= stopped + 1)
    }
  }

  private static func sample(time: Int64) -> ServerSample {
    ServerSample(
      time: time, node: "n", version: "v", uptimeSeconds: 0, connections: [:], members: 0, rooms: 0,
      messagesPerSecond: 0, deliveriesPerSecond: 0, lagP50Ms: 0, lagP99Ms: 0, heapBytes: 0,
      residentBytes: nil,
      roomRates: [:])
  }
}

private final class SeenCount: Sendable {
  let count = Atomic<Int>(0)
}
