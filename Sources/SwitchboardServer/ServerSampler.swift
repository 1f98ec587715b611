import SwitchboardChat
import SwitchboardIO
import Synchronization

/// This node's figures once a second (``ServerSample``), taken on the server's first loop
/// from the gauge tick that already runs there (LoopContext+Metrics.swift), and the last ten
/// minutes of them. The admin console reads ``latest`` and ``history()`` and is told of each
/// new sample through ``observe(_:)``.
///
/// What a sample costs does not depend on the console: one pass over the room table and the
/// loops' lag histograms a second, plus a few atomic loads. Nothing here runs per message;
/// the counters it reads (messages published, deliveries, connections by transport) are
/// kept whether anyone samples them or not.
final class ServerSampler: Sendable {
  /// Samples kept: ten minutes, one a second.
  static let capacity = 600

  /// What ``observe(_:)`` returns, to give to ``stopObserving(_:)``.
  struct ObserverToken: Hashable, Sendable {
    fileprivate let raw: Int
  }

  /// Called with each new sample, on the first loop, right after it was taken: it must not
  /// block (hop to another loop for real work).
  typealias Observer = @Sendable (ServerSample) -> Void

  private struct State {
    var window = ServerSampleWindow()
    var history = SampleRing(capacity: ServerSampler.capacity)
    var latest: ServerSample?
    /// The busiest rooms of the latest sample, for `/metrics`.
    var busiest: [ServerMetrics.BusyRoom] = []
    var observers: [Int: Observer] = [:]
    var nextToken = 0
  }

  private let state = Mutex(State())

  /// The newest sample, with its room rates (`nil` in the first second).
  var latest: ServerSample? { state.withLock { $0.latest } }

  /// The ``ServerMetrics/busiestRoomCount`` rooms with the most messages per second in the
  /// latest sample (ties by members), for `/metrics`' per-room lines.
  var busiestRooms: [ServerMetrics.BusyRoom] { state.withLock { $0.busiest } }

  /// The samples of the last ten minutes (at most ``capacity``), oldest first, without their
  /// room rates (``ServerSample/roomRates`` is empty in each).
  func history() -> [ServerSample] { state.withLock { $0.history.elements } }

  /// Runs `observer` on the first loop after each sample, once a second, until
  /// ``stopObserving(_:)`` with the token returned.
  func observe(_ observer: @escaping Observer) -> ObserverToken {
    state.withLock { state in
      state.nextToken += 1
      state.observers[state.nextToken] = observer
      return ObserverToken(raw: state.nextToken)
    }
  }

  /// Stops calling the observer `token` stands for (a second call does nothing).
  func stopObserving(_ token: ObserverToken) {
    _ = state.withLock { $0.observers.removeValue(forKey: token.raw) }
  }

  /// Takes a sample of `core` now and tells the observers. Called on the first loop once a
  /// second.
  func sample(_ core: ServerCore) {
    let metrics = core.metrics
    let rooms = core.hub.roomSummaries()
    var lastIDs: [String: UInt64] = [:]
    lastIDs.reserveCapacity(rooms.count)
    for room in rooms { lastIDs[room.name] = room.lastID }
    let bounds = metrics.loops.first?.lagHistogram.bounds ?? MetricsHistogram.defaultBounds
    var lag = [Int](repeating: 0, count: bounds.count + 1)
    for loop in metrics.loops {
      let buckets = loop.lagHistogram.bucketCounts
      guard buckets.count == lag.count else { continue }
      for i in lag.indices { lag[i] += buckets[i] }
    }
    let reading = ServerSampleWindow.Reading(
      nanoseconds: Deadline.now().nanoseconds, messages: metrics.messagesPublished.load(ordering: .relaxed),
      deliveries: core.hub.deliveries, lagBuckets: lag, lastIDs: lastIDs)
    let open = metrics.connectionsOpen
    let connections = [
      "tcp": open.tcp.load(ordering: .relaxed), "tls": open.tls.load(ordering: .relaxed),
      "udp": metrics.udp.members.load(ordering: .relaxed), "ws": open.ws.load(ordering: .relaxed),
      "wss": open.wss.load(ordering: .relaxed),
    ]
    let members = core.hub.counts.members
    let api = core.configuration.api
    let uptime = (ContinuousClock.now - core.started).components.seconds
    let heap = HeapPolicy.bytesInUse
    let resident = ProcessMemory.residentBytes
    let (sample, observers) = state.withLock { state -> (ServerSample, [Observer]) in
      let figures = state.window.advance(to: reading, bounds: bounds)
      let sample = ServerSample(
        time: ChatClock.milliseconds(), node: api.nodeID, version: api.version, uptimeSeconds: Int(uptime),
        connections: connections, members: members, rooms: rooms.count,
        messagesPerSecond: figures.messagesPerSecond, deliveriesPerSecond: figures.deliveriesPerSecond,
        lagP50Ms: figures.lagP50Ms, lagP99Ms: figures.lagP99Ms, heapBytes: heap, residentBytes: resident,
        roomRates: figures.roomRates)
      record(sample, in: &state)
      return (sample, Array(state.observers.values))
    }
    let busiest = ServerMetrics.busiest(
      rooms.map {
        .init(name: $0.name, messagesPerSecond: sample.roomRates[$0.name] ?? 0, members: $0.members)
      })
    state.withLock { $0.busiest = busiest }
    core.shareStatus(sample)
    for observer in observers { observer(sample) }
  }

  private func record(_ sample: ServerSample, in state: inout State) {
    var kept = sample
    kept.roomRates = [:]
    state.history.append(kept)
    state.latest = sample
  }
}

/// The last ``capacity`` samples, oldest overwritten first.
struct SampleRing {
  let capacity: Int
  private var storage: [ServerSample] = []
  /// Where the oldest is, once the ring is full.
  private var start = 0

  init(capacity: Int) {
    self.capacity = capacity
    storage.reserveCapacity(capacity)
  }

  /// Keeps `sample`, dropping the oldest when full.
  mutating func append(_ sample: ServerSample) {
    if storage.count < capacity {
      storage.append(sample)
    } else {
      storage[start] = sample
      start = (start + 1) % capacity
    }
  }

  /// The samples, oldest first.
  var elements: [ServerSample] { Array(storage[start...] + storage[..<start]) }
}
