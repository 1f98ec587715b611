import Foundation
import SwitchboardIO
import SwitchboardServer
import SwitchboardTestSupport
import SwitchboardWebSocket
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The slow-consumer contract (docs/BAD-INPUT.md, "A client that never reads"): a member
/// whose queue passes its bound gets the reason ahead of its dropped backlog and is
/// closed, counted and logged once, while everyone else keeps receiving at the same pace.
@Suite(.onTestThreads)
struct SlowConsumerTests {
  /// The server side of every test here: a small bound so a stalled member is found fast,
  /// a farewell time long enough for a loaded CI machine, lines ended by newlines only.
  private static func configure(_ c: inout ServerConfiguration) {
    c.maxBufferedPerConnection = 16 * 1024
    c.slowConsumerFarewellTime = .seconds(15)
    c.linePause = .seconds(30)
    c.limits.maxConnectionsPerIP = 0
  }

  /// A `writer` joins the one member already in the room and sends 1 KB lines until
  /// `verdict` holds (at most 20,000). Returns the writer, still in the room.
  private static func flood(_ server: ChatServer, until verdict: () -> Bool) async throws -> LineClient {
    let writer = try LineClient(server.tcpAddress!)
    try writer.sendLine("iam:writer")
    try await eventually { server.hub.who(room: "lobby").count == 2 }
    let payload = String(repeating: "x", count: 1000)
    var sent = 0
    while !verdict() {
      guard sent < 20_000 else { throw TestFailure("no slow-consumer verdict after \(sent) lines") }
      try writer.sendLine("\(sent) \(payload)")
      sent += 1
    }
    return writer
  }

  @Test func aStalledLineMemberGetsTheReasonAsItsLastLine() async throws {
    try await withServer(Self.configure) { server in
      let stuck = try LineClient(server.tcpAddress!, receiveBuffer: 4096)
      try stuck.sendLine("iam:stuck")
      let writer = try await Self.flood(server) {
        server.metrics.slowLineConsumers.load(ordering: .relaxed) > 0
      }
      // What the kernel held arrives first, then the reason, then the end.
      var last = ""
      while true {
        do {
          last = try stuck.readLine(timeout: .seconds(10))
        } catch {
          break
        }
        if last.hasPrefix("! ") { break }
        #expect(last.hasPrefix("writer: ") || last.hasPrefix("* "), "unexpected line \(last.prefix(40))")
      }
      #expect(last == "! too slow, disconnected")
      try stuck.expectClosed(timeout: .seconds(10))
      #expect(server.metrics.slowConsumers.load(ordering: .relaxed) == 1)
      #expect(server.hub.who(room: "lobby") == ["writer"])
      _ = writer
    }
  }

  @Test func aStalledWebSocketMemberIsClosedWith1008SlowConsumer() async throws {
    try await withServer(Self.configure) { server in
      let stuck = try WebSocketTestClient(
        server.httpAddress!, path: "/?format=text&name=stuck", receiveBuffer: 4096)
      let writer = try await Self.flood(server) {
        server.metrics.slowWebSocketConsumers.load(ordering: .relaxed) > 0
      }
      var closed: (code: WebSocketCloseCode?, reason: String)?
      while closed == nil {
        if case .close(let code, let reason) = try stuck.next(timeout: .seconds(10)) {
          closed = (code, reason)
        }
      }
      #expect(closed?.code == .policyViolation)
      #expect(closed?.reason == "slow consumer")
      #expect(server.metrics.slowConsumers.load(ordering: .relaxed) == 1)
      try await eventually { server.hub.who(room: "lobby") == ["writer"] }
      _ = writer
    }
  }

  /// 500 line members from four reader threads, a sender at 100 messages a second; run A
  /// without, run B with a member that stops reading. Every message reaches all 499 in
  /// order in both runs (no delivery stalls), and the stalled member alone is dropped, told
  /// why. The two runs' p99 latency is printed, not asserted: a timed bound on a machine
  /// that runs every suite at once proves little and fails by chance; latency is what the
  /// benchmarks measure.
  @Test func fiveHundredMembersKeepTheirPaceWhileOneStopsReading() async throws {
    try await withServer(Self.configure) { server in
      let address = server.tcpAddress!
      let readers = try (0..<499).map { i in
        let c = try LineClient(address)
        try c.sendLine("iam:m\(i)")
        return c
      }
      let sender = try LineClient(address)
      try sender.sendLine("iam:sender")
      let group = ReaderThreads(readers.map(\.fd), threads: 4)
      defer { group.stop() }
      try await eventually("500 members") { server.hub.who(room: "lobby").count == 500 }

      let rate = 100
      let dropped = { server.metrics.slowConsumers.load(ordering: .relaxed) }
      // What the loops hold queued and how late they ran, for a stall's report.
      let loops = {
        server.metrics.prometheusText(members: 0, rooms: 0).split(separator: "\n")
          .filter {
            $0.hasPrefix("switchboard_write_queue_bytes") || $0.hasPrefix("switchboard_loop_lag_max")
          }
          .joined(separator: ", ")
      }
      // A warm-up run first: the readers still work through 500 joins' announcements
      // (~125,000 lines), which would count as run A's latency.
      // It measures nothing, so it may stall longer than the measured runs (in the first
      // minutes of a full parallel run on a 2-core machine it once saw no delivery for 30 s).
      _ = try await Self.run(
        "W", sender: sender, rate: rate, atLeast: .seconds(1), stall: .seconds(120), group: group,
        dropped: dropped, loops: loops
      ) {
        true
      }
      let a = try await Self.run(
        "A", sender: sender, rate: rate, atLeast: .seconds(3), group: group, dropped: dropped, loops: loops
      ) {
        true
      }
      #expect(server.metrics.slowConsumers.load(ordering: .relaxed) == 0, "a reader was dropped in run A")
      let stalled = try LineClient(address, receiveBuffer: 4096, maxSegment: 536)
      try stalled.sendLine("iam:stalled")
      try await eventually("the stalled member") { server.hub.who(room: "lobby").count == 501 }
      // Reads the stalled member as soon as it is judged (its farewell must not wait for
      // the run to end: past the farewell time it would be reset instead).
      let farewell = Self.lastLineAfterVerdict(fd: stalled.fd, metrics: server.metrics)
      let b = try await Self.run(
        "B", sender: sender, rate: rate, atLeast: .seconds(3), group: group, dropped: dropped, loops: loops
      ) {
        server.metrics.slowLineConsumers.load(ordering: .relaxed) > 0
      }
      #expect(server.metrics.slowLineConsumers.load(ordering: .relaxed) == 1)
      // The stalled member's last line is the reason.
      #expect(farewell.wait(timeout: .seconds(30)) == "! too slow, disconnected")
      _ = stalled

      print(
        "slow consumer: p99 A (no stalled member) \(Self.ms(a.p99)), p99 B (one stalled) \(Self.ms(b.p99))"
          + " (\(a.messages) + \(b.messages) messages × 499)")
      _ = readers
    }
  }

  /// On a thread of its own: waits for a line member's slow-consumer verdict, then reads
  /// `fd` to its end; the result is the last line read.
  private static func lastLineAfterVerdict(fd: Int32, metrics: ServerMetrics) -> LastLine {
    let result = LastLine()
    Thread {
      while metrics.slowLineConsumers.load(ordering: .relaxed) == 0 { usleep(2000) }
      var bytes: [UInt8] = []
      var chunk = [UInt8](repeating: 0, count: 65536)
      while true {
        let n = chunk.withUnsafeMutableBytes { Posix.read(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { break }
        bytes += chunk[0..<n]
      }
      let lines = bytes.split(separator: UInt8(ascii: "\n"))
      result.finish(lines.last.map { String(decoding: $0, as: UTF8.self) } ?? "")
    }.start()
    return result
  }

  private static func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }

  /// What one run measured.
  private struct RunResult {
    var messages: Int
    var p99: Double
  }

  /// Sends `tag`-marked messages at `rate` a second for at least `atLeast` and until
  /// `until` holds (at most 20 s), then waits until every reader got every one of them,
  /// in order (failing when no delivery came for `stall`); returns the p99 of their latency.
  private static func run(
    _ tag: String, sender: LineClient, rate: Int, atLeast: Duration, stall: Duration = .seconds(30),
    group: ReaderThreads, dropped: () -> Int, loops: () -> String, until: () -> Bool
  ) async throws -> RunResult {
    group.begin(tag)
    let clock = ContinuousClock()
    let start = clock.now
    let padding = String(repeating: "p", count: 300)
    var count = 0
    while clock.now - start < atLeast || !until() {
      guard clock.now - start < .seconds(20) else { throw TestFailure("run \(tag): condition never held") }
      let due = start + .nanoseconds(Int64(count) * 1_000_000_000 / Int64(rate))
      if due > clock.now { try await Task.sleep(until: due, clock: clock) }
      try sender.sendLine("\(tag) \(count) \(Deadline.now().nanoseconds) \(padding)")
      count += 1
    }
    // Deliveries may lag far behind on a loaded machine (the four reader threads share it
    // with every other suite), so the wait fails when they stop moving for `stall`, not at
    // a fixed time (and at the latest after 5 minutes). A stall is the server's only when
    // the kernel holds nothing unread for the readers: bytes waiting there were sent, and
    // readers starved of CPU (a full parallel run on a 2-core CI machine once saw no read
    // for 30 s) are the machine's, so the wait goes on for them.
    var progress = (deliveries: -1, at: clock.now)
    try await eventually(
      timeout: .seconds(300),
      "run \(tag): \(count) messages to 499 members, \(group.received(tag)) deliveries, short: \(group.shortfall(tag, count)),"
        + " slow consumers \(dropped()), \(group.unreadBytes()) bytes unread"
    ) {
      let received = group.received(tag)
      if received != progress.deliveries { progress = (received, clock.now) }
      guard clock.now - progress.at < stall else {
        let unread = group.unreadBytes()
        guard unread == 0 else {
          print(
            "run \(tag): no read for \(stall) with \(unread) bytes waiting for the readers: the machine is behind"
          )
          progress.at = clock.now
          return false
        }
        throw TestFailure(
          "run \(tag): no delivery for \(stall) and nothing waiting for the readers; \(count) messages to 499 members,"
            + " \(received) deliveries, short: \(group.shortfall(tag, count)), slow consumers \(dropped());"
            + " loops: \(loops())")
      }
      return received == count * group.memberCount
    }
    let summary = group.end(tag)
    #expect(summary.outOfOrder == 0, "run \(tag): messages out of order")
    return RunResult(messages: count, p99: summary.p99)
  }
}

/// Reader threads for many line members: each polls its share of the sockets, splits
/// lines, and for a run's messages (`TAG SEQ SENT_NS …`) checks the order per member and
/// records the latency. Counts are published once per poll round, not per line.
private final class ReaderThreads: Sendable {
  struct Summary {
    var p99: Double
    var outOfOrder: Int
  }

  private struct Shared {
    var tag = ""
    var received = 0
    var latencies: [UInt64] = []
    var outOfOrder = 0
    var stopped = false
    var perMember: [Int32: Int] = [:]
  }

  private let shared = Mutex(Shared())
  private let finished: [Signal]
  private let fds: [Int32]
  let memberCount: Int

  init(_ fds: [Int32], threads: Int) {
    self.fds = fds
    memberCount = fds.count
    finished = (0..<threads).map { _ in Signal() }
    for (t, done) in finished.enumerated() {
      let mine = stride(from: t, to: fds.count, by: threads).map { fds[$0] }
      let thread = Thread { [self] in
        read(mine)
        done.fire()
      }
      thread.start()
    }
  }

  func begin(_ tag: String) {
    shared.withLock {
      $0.tag = tag
      $0.received = 0
      $0.latencies = []
      $0.outOfOrder = 0
      $0.perMember = [:]
    }
  }

  /// Members that got fewer than `count` of run `tag`'s messages, as `fd:received`.
  func shortfall(_ tag: String, _ count: Int) -> String {
    shared.withLock { s in
      let short = s.perMember.filter { $0.value < count }.map { "\($0.key):\($0.value)" }
      return
        "\(short.count) members [\(short.prefix(8).joined(separator: " "))], \(memberCount - s.perMember.count) got none"
    }
  }

  /// Bytes the kernel holds for the members, not read yet (peeked, up to 64 KiB a member).
  func unreadBytes() -> Int {
    var scratch = [UInt8](repeating: 0, count: 64 * 1024)
    return fds.reduce(0) { total, fd in
      let n = scratch.withUnsafeMutableBytes {
        recv(fd, $0.baseAddress, $0.count, Int32(MSG_PEEK | MSG_DONTWAIT))
      }
      return total + max(n, 0)
    }
  }

  func received(_ tag: String) -> Int { shared.withLock { $0.tag == tag ? $0.received : 0 } }

  func end(_ tag: String) -> Summary {
    shared.withLock { s in
      let sorted = s.latencies.sorted()
      let p99 = sorted.isEmpty ? 0 : Double(sorted[min(sorted.count - 1, sorted.count * 99 / 100)]) / 1e9
      return Summary(p99: p99, outOfOrder: s.outOfOrder)
    }
  }

  func stop() {
    shared.withLock { $0.stopped = true }
    for done in finished { _ = done.wait(timeout: .seconds(5)) }
  }

  /// What one poll round read of one run's messages.
  private struct Round {
    var got = 0
    var latencies: [UInt64] = []
    var disorder = 0
    var perMember: [Int32: Int] = [:]
  }

  private func read(_ fds: [Int32]) {
    var polls = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    var buffers = [[UInt8]](repeating: [], count: fds.count)
    // Each member's next sequence number in the run it last got a message of. The run is
    // read from each line, not from the shared tag at the start of a round: a round that
    // began before ``begin(_:)`` may read the new run's first messages.
    var expected = [(tag: String, next: Int)](repeating: ("", 0), count: fds.count)
    let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
    defer { chunk.deallocate() }
    let prefix = Array("sender: ".utf8)
    while !shared.withLock({ $0.stopped }) {
      guard poll(&polls, nfds_t(polls.count), 100) > 0 else { continue }
      var rounds: [String: Round] = [:]
      for i in polls.indices where polls[i].revents != 0 {
        let n = Posix.read(polls[i].fd, chunk.baseAddress, chunk.count)
        if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }  // a signal to another suite's child
        if n <= 0 {
          polls[i].fd = -1  // closed: poll ignores negative descriptors
          continue
        }
        buffers[i].append(contentsOf: chunk[0..<n])
        let now = Deadline.now().nanoseconds
        var start = 0
        while let end = buffers[i][start...].firstIndex(of: UInt8(ascii: "\n")) {
          let line = buffers[i][start..<end]
          start = end + 1
          guard line.starts(with: prefix) else { continue }
          let fields = line.dropFirst(prefix.count).split(separator: UInt8(ascii: " "), maxSplits: 3)
          guard fields.count >= 3,
            let seq = Int(String(decoding: fields[1], as: UTF8.self)),
            let sent = UInt64(String(decoding: fields[2], as: UTF8.self))
          else { continue }
          let tag = String(decoding: fields[0], as: UTF8.self)
          if expected[i].tag != tag { expected[i] = (tag, 0) }
          var round = rounds[tag, default: Round()]
          if seq != expected[i].next { round.disorder += 1 }
          expected[i].next = seq + 1
          round.got += 1
          round.perMember[polls[i].fd, default: 0] += 1
          round.latencies.append(now &- min(sent, now))
          rounds[tag] = round
        }
        buffers[i].removeFirst(start)
      }
      guard !rounds.isEmpty else { continue }
      shared.withLock { s in
        guard let round = rounds[s.tag] else { return }
        s.received += round.got
        s.latencies += round.latencies
        s.outOfOrder += round.disorder
        s.perMember.merge(round.perMember, uniquingKeysWith: +)
      }
    }
  }
}

/// The last line a reader thread saw, once it saw the end.
private final class LastLine: Sendable {
  private let line = Mutex<String?>(nil)
  private let done = Signal()

  func finish(_ text: String) {
    line.withLock { $0 = text }
    done.fire()
  }

  func wait(timeout: Duration) -> String? {
    done.wait(timeout: timeout) ? line.withLock { $0 } : nil
  }
}
