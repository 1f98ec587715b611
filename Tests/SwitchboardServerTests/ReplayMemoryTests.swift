import Foundation
import SwitchboardHTTP
import SwitchboardIO
import SwitchboardTestSupport
import SwitchboardWebSocket
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Every replay path is bounded (docs/ARCHITECTURE.md, "Replays"): twenty members replaying
/// a room of 200 messages of byte 0x01 (six bytes each in JSON: every member's history is
/// 9.4 MiB of frames, more than a connection may buffer) at once, through the URL's
/// `since`, a `join` frame's `since`, and the line dialect's `/history` and `/since`, grow
/// the server's resident memory by little more than a slice per member, and every
/// WebSocket joiner still receives all 200 messages. Measured on a spawned
/// `switchboard serve` with its defaults (VmRSS of its own process). The messages are
/// 8 KiB, not the issue's 64 KiB, so that a debug build encodes the 190 MiB of escapes
/// within seconds; the issue's figures are for a release build.
@Suite(
  .onTestThreads, .enabled(ifAvailable: Executables.switchboard != nil, "build the switchboard executable first"),
  .enabled(ifAvailable: ProcFS.available, ProcFS.needed))
struct ReplayMemoryTests {
  let binary = Executables.switchboard ?? ""

  static let messages = 200
  static let messageBytes = 8 << 10
  static let members = 20
  /// Growth allowed while the replays run: a slice (512 KiB) and a connection's buffers
  /// per member are ~20 MiB in all; whole-history replays cost 20 × 9.4 MiB, several times
  /// over (the frame, its string, its copy).
  static let maxGrowth = 64 << 20
  static let room = "big"

  private func startServer() async throws -> (ServeProcess, tcp: Int, http: Int) {
    let server = try await ServeProcess.start(["--ephemeral"], listeners: [.tcp, .http], environment: ["GLIBC_TUNABLES": ""])
    return (server, server.tcp, server.http)
  }

  /// Publishes the room's 200 messages (text dialect: the bytes as they are) and waits
  /// until the last one is kept.
  private func fillRoom(tcp: Int, http: Int) throws {
    let writer = try WebSocketTestClient(
      try SocketAddress(host: "127.0.0.1", port: http), path: "/rooms/\(Self.room)?format=text")
    let text = String(repeating: "\u{01}", count: Self.messageBytes)
    for _ in 0..<(Self.messages / 10) { try writer.send(texts: Array(repeating: text, count: 10)) }
    let check = try LineClient(try SocketAddress(host: "127.0.0.1", port: tcp))
    try check.sendLine("/join \(Self.room)")
    try check.expectLine(timeout: .seconds(30)) { $0.hasPrefix("* you are now in \(Self.room)") }
    let kept = try eventually(timeout: .seconds(60)) {
      try check.sendLine("/since \(Self.messages - 1)")
      let line = try check.expectLine(timeout: .seconds(30)) { $0.hasPrefix("[") || $0.hasPrefix("* no kept") }
      return line.hasPrefix("[\(Self.messages)] ")
    }
    guard kept else { throw TestFailure("the room's messages were not all kept") }
    withExtendedLifetime(writer) {}
  }

  /// Runs `member` on `Self.members` threads at once while sampling the server's resident
  /// memory; returns each member's result and the peak growth over the baseline.
  private func whileSampling<T: Sendable>(
    _ pid: pid_t, _ member: @escaping @Sendable (Int) -> T
  ) throws -> (results: [T], growth: Int) {
    let baseline = try ProcFS.statusBytes(pid)
    let peak = Locked(baseline)
    let results = Locked([Int: T]())
    let done = Locked(false)
    let sampler = Thread {
      while !done.value {
        if let now = try? ProcFS.statusBytes(pid) { peak.withLock { $0 = max($0, now) } }
        usleep(10_000)
      }
    }
    sampler.start()
    let group = DispatchGroup()
    for i in 0..<Self.members {
      group.enter()
      Thread {
        let result = member(i)
        results.withLock { $0[i] = result }
        group.leave()
      }.start()
    }
    group.wait()
    done.withLock { $0 = true }
    if let now = try? ProcFS.statusBytes(pid) { peak.withLock { $0 = max($0, now) } }
    let all = results.value.sorted { $0.key < $1.key }.map(\.value)
    return (all, peak.value - baseline)
  }

  @Test func twentyReplaysThroughTheURLStayBoundedAndComplete() async throws {
    let (server, tcp, http) = try await startServer()
    defer { server.stop() }
    try fillRoom(tcp: tcp, http: http)
    let (counts, growth) = try whileSampling(server.pid) { _ in
      (try? Self.replayedMessages(port: http, path: "/rooms/\(Self.room)?since=0", join: nil)) ?? -1
    }
    print("URL since=0 replays: +\(growth >> 20) MiB resident, messages received \(counts)")
    #expect(counts.allSatisfy { $0 == Self.messages }, "messages received: \(counts)")
    #expect(growth < Self.maxGrowth, "the server grew by \(growth >> 20) MiB")
  }

  @Test func twentyReplaysThroughAJoinFrameStayBoundedAndComplete() async throws {
    let (server, tcp, http) = try await startServer()
    defer { server.stop() }
    try fillRoom(tcp: tcp, http: http)
    let join = #"{"type":"join","data":{"room":"\#(Self.room)","since":0}}"#
    let (counts, growth) = try whileSampling(server.pid) { _ in
      (try? Self.replayedMessages(port: http, path: "/", join: join)) ?? -1
    }
    print("join-frame since=0 replays: +\(growth >> 20) MiB resident, messages received \(counts)")
    #expect(counts.allSatisfy { $0 == Self.messages }, "messages received: \(counts)")
    #expect(growth < Self.maxGrowth, "the server grew by \(growth >> 20) MiB")
  }

  @Test func twentyLineMembersAskingForEverythingAtOnceStayBounded() async throws {
    let (server, tcp, http) = try await startServer()
    defer { server.stop() }
    try fillRoom(tcp: tcp, http: http)
    // Four answers asked for in one write each, before reading any: 6.4 MiB of history
    // lines per member if answered at once.
    let commands = ["/history 1000", "/since 0", "/history 1000", "/since 0"]
    let (answers, growth) = try whileSampling(server.pid) { _ in
      (try? Self.lineAnswers(port: tcp, commands: commands)) ?? []
    }
    print("line replays: +\(growth >> 20) MiB resident, answers \(answers.map(\.count))")
    for lines in answers {
      #expect(lines.count == commands.count, "answers: \(lines)")
      // Each answer is one slice and says how to go on.
      #expect(lines.allSatisfy { $0.hasPrefix("* more history after id ") && $0.contains(": /since ") }, "\(lines)")
    }
    #expect(growth < Self.maxGrowth, "the server grew by \(growth >> 20) MiB")
  }

  /// A line member joins the room, sends `commands` in one write, then reads; returns the
  /// line that ends each answer.
  private static func lineAnswers(port: Int, commands: [String]) throws -> [String] {
    let client = try LineClient(try SocketAddress(host: "127.0.0.1", port: port))
    try client.sendLine("/join \(room)")
    try client.expectLine(timeout: .seconds(30)) { $0.hasPrefix("* you are now in \(room)") }
    try client.send(commands.map { $0 + "\n" }.joined())
    var ends: [String] = []
    while ends.count < commands.count {
      let line = try client.expectLine(timeout: .seconds(60)) {
        $0.hasPrefix("* end of history") || $0.hasPrefix("* more history") || $0.hasPrefix("!")
      }
      ends.append(line)
      if line.hasPrefix("!") { break }
    }
    return ends
  }

  /// Upgrades to `path`, sends `join` (a text frame) when given, and counts the messages
  /// in the `history` frames of the room until all are there or the server stops sending:
  /// the count. Pings are answered. The frames are read raw (unmasked server frames), the messages counted by
  /// their `{"id":` (the texts are escaped `\u0001`s), to keep the test's own cost small.
  private static func replayedMessages(port: Int, path: String, join: String?) throws -> Int {
    let socket = try LineClient(try SocketAddress(host: "127.0.0.1", port: port))
    let request = WebSocketHandshake.clientRequest(host: "127.0.0.1:\(port)", path: path)
    try socket.send(request.requestBytes)
    var parser = HTTPResponseParser()
    let deadline = ContinuousClock.now + .seconds(120)
    var buffer: [UInt8] = []
    while true {
      parser.append(socket.takeBuffered())
      if let head = try parser.next() {
        guard head.status == 101 else { throw TestFailure("upgrade refused: \(head.status)") }
        buffer = parser.takeRemainingBytes()
        break
      }
      guard ContinuousClock.now < deadline else { throw TestFailure("no handshake response") }
      socket.fill(timeout: .milliseconds(100))
    }
    var client = WebSocketConnection(role: .client)
    if let join {
      guard let frame = client.sendText(join) else { throw TestFailure("cannot frame the join") }
      try socket.send(frame)
    }
    let opening = Array(#"{"type":"history","data":["#.utf8)
    let marker = Array(#"{"id":"#.utf8)
    let roomField = Array(#""room":"\#(room)""#.utf8)
    var counted = 0
    while counted < messages, ContinuousClock.now < deadline {
      guard let (opcode, payload) = nextFrame(&buffer) else {
        if !socket.fill(timeout: .milliseconds(200)) {
          if socket.closedByPeer { break }
          continue
        }
        buffer += socket.takeBuffered()
        continue
      }
      if opcode == 0x8 { break }
      // Pings answered, as a real client does: the server drops a member that leaves one
      // unanswered for a whole keepalive interval (30 s), shorter than this deadline.
      if opcode == 0x9, let pong = client.pong(Array(payload)) { try socket.send(pong) }
      guard opcode == 0x1, payload.starts(with: opening), contains(payload, roomField) else { continue }
      counted += occurrences(of: marker, in: payload)
    }
    return counted
  }

  /// The next whole unmasked frame at the start of `buffer` (taken out of it).
  private static func nextFrame(_ buffer: inout [UInt8]) -> (UInt8, ArraySlice<UInt8>)? {
    guard buffer.count >= 2 else { return nil }
    var length = Int(buffer[1] & 0x7F)
    var header = 2
    if length == 126 {
      guard buffer.count >= 4 else { return nil }
      length = Int(buffer[2]) << 8 | Int(buffer[3])
      header = 4
    } else if length == 127 {
      guard buffer.count >= 10 else { return nil }
      length = (2..<10).reduce(0) { $0 << 8 | Int(buffer[$1]) }
      header = 10
    }
    guard buffer.count >= header + length else { return nil }
    let frame = (buffer[0] & 0x0F, buffer[header..<header + length])
    buffer.removeFirst(header + length)
    return frame
  }

  /// Occurrences of `needle` (memchr for its first byte, then memcmp: fast in a debug
  /// build too).
  private static func occurrences(of needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int {
    haystack.withUnsafeBytes { hay in
      needle.withUnsafeBytes { n in
        var count = 0
        var offset = 0
        while offset + n.count <= hay.count,
          let hit = memchr(hay.baseAddress! + offset, Int32(needle[0]), hay.count - offset - n.count + 1)
        {
          let at = hit - UnsafeMutableRawPointer(mutating: hay.baseAddress!)
          if memcmp(hit, n.baseAddress!, n.count) == 0 {
            count += 1
            offset = at + n.count
          } else {
            offset = at + 1
          }
        }
        return count
      }
    }
  }

  private static func contains(_ haystack: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
    occurrences(of: needle, in: haystack) > 0
  }
}

