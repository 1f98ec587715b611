import Foundation
import SwitchboardIO
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// What a spawned `switchboard serve` keeps: per idle WebSocket connection (resident, and
/// heap in use), and after a burst of large messages. Measured from `/proc/PID/status`
/// (VmRSS) and the server's `switchboard_heap_bytes_in_use` gauge (glibc's `mallinfo2`) of a
/// server process of its own, so nothing else in the test process moves the figures.
/// docs/BENCHMARKS.md ("Memory per idle connection", "Memory given back after large
/// messages") has the figures these limits come from.
@Suite(
  .onTestThreads, .enabled(ifAvailable: Executables.switchboard != nil, "build the switchboard executable first"),
  .enabled(ifAvailable: ProcFS.available, ProcFS.needed))
struct MemoryTests {
  let binary = Executables.switchboard ?? ""

  /// Idle connections measured, after a warm-up that allocates what is allocated once.
  static let idleConnections = 1000
  /// Resident (anonymous) bytes per idle text-dialect WebSocket connection accepted: the
  /// 1 KiB an idle connection is meant to cost, plus 64 bytes for page rounding, a table's
  /// doubling and a loaded machine's holes, which no new per-connection buffer fits in (the
  /// heap test below is the precise one).
  static let maxBytesPerIdleConnection = 1088
  /// Heap bytes in use per idle connection the test accepts: under the inventory's sum in
  /// glibc's chunk sizes plus 64, so that one more object of 64 bytes or more per connection
  /// (a timer with its closure, a kept buffer) fails it, while the few tens of bytes a loaded
  /// machine's batching and free chunks add do not; smaller objects show in
  /// `benchmarks/idle-heap.sh` and the footprint tests.
  /// The hub's member record carries the member's transport (one byte) and join time for
  /// the server API's presence: 16 bytes more than before it did.
  static let maxHeapBytesPerIdleConnection = 1048

  /// Resident bytes above the baseline accepted once a burst of 16 MiB messages is over:
  /// half of one message, so that a kept 16 MiB read buffer, or heap pages glibc did not
  /// return, fail it (twice the baseline is checked too). Sized for the debug build the
  /// suites run; a release build keeps more free arena memory, which `malloc_trim` does not
  /// return (docs/BENCHMARKS.md, "Memory given back after large messages").
  static let slackAfterLargeMessages = 8 << 20

  /// Starts a server with glibc's default allocator settings: the test runner's
  /// `GLIBC_TUNABLES` (a fixed mmap threshold) would hide what a large free leaves behind.
  private func startServer(_ extra: [String] = []) async throws -> (ServeProcess, http: Int) {
    let server = try await ServeProcess.start(
      ["--ephemeral", "--loops", "1", "--max-connections-per-ip", "0"] + extra, listeners: [.http],
      environment: ["GLIBC_TUNABLES": ""])
    return (server, server.http)
  }

  /// Opens `count` text-dialect WebSocket connections, each upgraded before the next.
  private func openIdle(_ count: Int, port: Int) throws -> [WebSocketTestClient] {
    let address = try SocketAddress(host: "127.0.0.1", port: port)
    return try (0..<count).map { _ in try WebSocketTestClient(address, path: "/rooms/idle?format=text") }
  }

  /// How long after the server's start a reading is taken before the first keepalive tick
  /// (`webSocketPingInterval`, 30 s) can have pinged the connections: the tick leaves each
  /// pinged connection its write queue's slot block and the ping frame's freed chunks
  /// (~200 bytes resident a connection), which is not what an idle connection holds between
  /// ticks.
  static let beforeFirstTick: Duration = .seconds(27)
  /// The bound for a reading that a tick may have fallen into (a loaded machine can take
  /// longer than the tick to open the connections): the tick's ~200 bytes on top. A
  /// per-connection buffer kept after a ping (a 4 KiB write run, say) still fails it.
  static let maxBytesPerIdleConnectionAfterATick = 1344

  /// Resident bytes per idle connection on the Dispatch backend (Darwin's default): one
  /// DispatchSource and its handler per descriptor in libdispatch's heap on top of the
  /// epoll figure. The bound keeps the epoll bound's margin over the measured figure, so a
  /// write source made for every connection (not only when one waits to write) fails it
  /// (docs/BENCHMARKS.md, "Memory per idle connection").
  static let maxBytesPerIdleDispatchConnection = 1792
  /// The same after a keepalive tick may have fallen into the reading (its ~200 bytes on top).
  static let maxBytesPerIdleDispatchConnectionAfterATick = 2048

  @Test func anIdleWebSocketConnectionCostsUnderTheRecordedFigure() async throws {
    try await expectIdleBytes(
      [], bound: Self.maxBytesPerIdleConnection, afterATick: Self.maxBytesPerIdleConnectionAfterATick)
  }

  @Test func anIdleConnectionOnTheDispatchBackendCostsUnderItsRecordedFigure() async throws {
    try await expectIdleBytes(
      ["--backend", "dispatch"], bound: Self.maxBytesPerIdleDispatchConnection,
      afterATick: Self.maxBytesPerIdleDispatchConnectionAfterATick)
  }

  /// Holds the resident bytes per idle WebSocket connection of a server started with
  /// `extra` to `bound` (`afterATick` when a keepalive tick may be in the reading).
  private func expectIdleBytes(_ extra: [String], bound idleBound: Int, afterATick: Int) async throws {
    // Up to three servers: the first whose reading came before its first keepalive tick
    // is judged by the idle bound; if none did (a very loaded machine), the last one by
    // the bound that allows for a tick.
    for attempt in 1...3 {
      let started = ContinuousClock.now
      let (server, http) = try await startServer(extra)
      defer { server.stop() }
      let warm = try openIdle(100, port: http)
      // The warm-up's allocations settle (the loop's tables grow in steps). Anonymous pages
      // only: a page of the binary faulted in again between the readings (the page cache is
      // under pressure while others build) once added 120 bytes a connection.
      let before = try ProcFS.statusBytes(server.pid, "RssAnon")
      let idle = try openIdle(Self.idleConnections, port: http)
      // Every upgrade was answered, so every session exists; let the loop finish its turn.
      let after = try ProcFS.statusBytes(server.pid, "RssAnon")
      let beforeTick = ContinuousClock.now - started < Self.beforeFirstTick
      withExtendedLifetime((warm, idle)) {}
      if !beforeTick && attempt < 3 {
        print("idle WebSocket connection: reading \(attempt) may include a keepalive tick; again")
        continue
      }
      let perConnection = (after - before) / Self.idleConnections
      let bound = beforeTick ? idleBound : afterATick
      print("idle WebSocket connection \(extra): \(perConnection) bytes resident each (bound \(bound))")
      #expect(
        perConnection <= bound,
        """
        \(perConnection) bytes resident per idle WebSocket connection \
        (\(before) → \(after) over \(Self.idleConnections))
        """)
      return
    }
  }

  /// The server's heap in use (`switchboard_heap_bytes_in_use`), scraped from `/metrics`.
  private static func heapInUse(port: Int) throws -> Int {
    let scrape = try LineClient(try SocketAddress(host: "127.0.0.1", port: port))
    try scrape.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    let row = try scrape.expectLine { $0.hasPrefix("switchboard_heap_bytes_in_use ") }
    guard let bytes = Int(row.split(separator: " ")[1]), bytes > 0 else {
      throw TestFailure("no heap figure in \(row)")
    }
    return bytes
  }

  /// The allocation count of the inventory (docs/BENCHMARKS.md, "Memory per idle
  /// connection"): the heap an idle connection keeps, as the allocator counts it, without
  /// the page rounding and free holes that move the resident figure.
  @Test func anIdleWebSocketConnectionsHeapStaysWithinTheInventory() async throws {
    let (server, http) = try await startServer()
    defer { server.stop() }
    let warm = try openIdle(100, port: http)
    let before = try Self.heapInUse(port: http)
    let idle = try openIdle(Self.idleConnections, port: http)
    // Work the loop still has queued (a join's task, a cancelled timer) may hold a little
    // for a moment on a loaded machine: the figure has until the deadline to settle.
    var after = 0
    var perConnection = 0
    let settled = try eventually(timeout: .seconds(5)) {
      after = try Self.heapInUse(port: http)
      perConnection = (after - before) / Self.idleConnections
      if perConnection <= Self.maxHeapBytesPerIdleConnection { return true }
      usleep(100_000)  // paced: each reading is a scrape, a connection of its own
      return false
    }
    print("idle WebSocket connection: \(perConnection) bytes of heap each")
    #expect(
      settled,
      """
      \(perConnection) bytes of heap per idle WebSocket connection \
      (\(before) → \(after) over \(Self.idleConnections))
      """)
    withExtendedLifetime((warm, idle)) {}
  }

  @Test func residentMemoryFallsBackAfterLargeMessages() async throws {
    let size = 16 << 20
    let (server, http) = try await startServer(["--max-message-size", "\(size)"])
    defer { server.stop() }
    let client = try WebSocketTestClient(try SocketAddress(host: "127.0.0.1", port: http), path: "/echo")
    let baseline = try ProcFS.statusBytes(server.pid)
    // A masked binary frame with a zero key: the payload goes as is.
    var header: [UInt8] = [0x82, 0x80 | 127]
    header += (0..<8).reversed().map { UInt8(truncatingIfNeeded: UInt64(size) >> (8 * UInt64($0))) }
    header += [0, 0, 0, 0]
    let frame = header + [UInt8](repeating: 0x61, count: size)
    var peak = baseline
    for round in 0..<3 {
      if round == 2 {
        // A pause mid-frame of the last message, longer than the loop's idle wait before a
        // trim: the trim it allows falls inside the burst, and the buffers freed after it
        // must still be given back (a slow sender in CI once left two 16 MiB buffers
        // resident).
        try client.sendRaw(Array(frame[..<(12 << 20)]))
        try await Task.sleep(for: .milliseconds(300))
        try client.sendRaw(Array(frame[(12 << 20)...]))
      } else {
        try client.sendRaw(frame)
      }
      let already = client.socket.bufferedBytes.count
      client.socket.clearBuffer()
      try Self.drain(client.socket.fd, bytes: size + 10 - already)
      peak = max(peak, try ProcFS.statusBytes(server.pid))
    }
    // The burst is over and the connection stays open: its buffers must not.
    var now = peak
    let fell = try eventually(timeout: .seconds(20)) {
      now = try ProcFS.statusBytes(server.pid)
      return now <= min(2 * baseline, baseline + Self.slackAfterLargeMessages)
    }
    #expect(fell, "resident \(baseline) before, \(peak) at the peak, \(now) after 20 s idle")
    withExtendedLifetime(client) {}
  }

  /// Reads and discards `bytes` bytes (an echoed frame), failing after 60 s.
  private static func drain(_ fd: Int32, bytes: Int) throws {
    var left = bytes
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    let deadline = ContinuousClock.now + .seconds(60)
    while left > 0 {
      guard ContinuousClock.now < deadline else {
        throw TestFailure("echo incomplete: \(left) bytes missing")
      }
      var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard poll(&pfd, 1, 1000) > 0 else { continue }
      let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, min($0.count, left), 0) }
      if n <= 0 { throw TestFailure("connection closed with \(left) bytes of the echo missing") }
      left -= n
    }
  }
}
