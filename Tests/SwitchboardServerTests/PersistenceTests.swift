import Foundation
import SwitchboardChat
import SwitchboardIO
import SwitchboardServer
import SwitchboardStore
import SwitchboardTestSupport
import Testing

/// History on disk with the real binary: SIGKILL mid-stream, restart on the same data
/// directory, nothing acknowledged lost, ids continue, clients resume.
@Suite(.onTestThreads, .enabled(ifAvailable: Executables.switchboard != nil, "build the switchboard executable first"))
struct PersistenceTests {
  let binary = Executables.switchboard ?? ""

  func temporaryDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("sb-persist-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  /// Starts `serve` over `dataDir`, TCP and HTTP on ports the kernel chose (a restart gets
  /// new ones: the clients here connect anew).
  func serve(dataDir: String) async throws -> ServeProcess {
    try await ServeProcess.start(["--data-dir", dataDir], listeners: [.tcp, .http])
  }

  func data(_ frame: [String: Any]) -> [String: Any] { frame["data"] as? [String: Any] ?? [:] }

  @Test func acknowledgedMessagesSurviveSIGKILLAndIdsContinue() async throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var server = try await serve(dataDir: dir)
    var address = try SocketAddress(host: "127.0.0.1", port: server.http)
    let writer = try WebSocketTestClient(address)
    let history = try writer.nextJSON(type: "history")
    let epoch = try #require(history["epoch"] as? String)
    try writer.send(text: "writer")
    var acked: Set<Int> = []
    for i in 1...200 {
      try writer.send(text: #"{"type":"message","data":{"text":"m\#(i)","ref":\#(i)}}"#)
    }
    // Collect acks for a while, then kill without warning mid-stream.
    while acked.count < 100 {
      let ack = data(try writer.nextJSON(type: "ack"))
      acked.insert((ack["id"] as? NSNumber)?.intValue ?? -1)
    }
    server.signal(SIGKILL)
    _ = try await server.waitForExit()

    server = try await serve(dataDir: dir)
    address = try SocketAddress(host: "127.0.0.1", port: server.http)
    defer { server.signal(SIGTERM) }
    // A client resuming from id 50 in the same epoch gets 51… with no gap.
    let resumed = try WebSocketTestClient(address, path: "/rooms/lobby?since=50&epoch=\(epoch)")
    let replay = try resumed.nextJSON(type: "history")
    #expect(replay["epoch"] as? String == epoch)
    #expect((replay["recovered"] as? NSNumber)?.boolValue == true)
    let ids = (replay["data"] as? [[String: Any]] ?? []).compactMap { ($0["id"] as? NSNumber)?.intValue }
    #expect(ids.first == 51)
    #expect(ids == Array(51..<(51 + ids.count)), "ids must be contiguous")
    for id in acked { #expect(id <= 50 || ids.contains(id), "acknowledged message \(id) lost") }
    // Ids continue after the last stored one.
    let last = ids.last ?? 50
    try resumed.send(text: #"{"type":"message","data":{"text":"after restart","ref":"x"}}"#)
    let ack = data(try resumed.nextJSON(type: "ack"))
    #expect((ack["id"] as? NSNumber)?.intValue == last + 1)
    // The line dialect sees the same history.
    let line = try LineClient(SocketAddress(host: "127.0.0.1", port: server.tcp))
    try line.sendLine("/since \(last)")
    try line.expectLine { $0.hasPrefix("[\(last + 1)] ") && $0.hasSuffix("after restart") }
    // A client from another epoch is told it cannot have a complete replay.
    let stranger = try WebSocketTestClient(address, path: "/rooms/lobby?since=5&epoch=0000000000000000")
    #expect((try stranger.nextJSON(type: "history")["recovered"] as? NSNumber)?.boolValue == false)
  }

  @Test func aCorruptOrUnusableDataDirectoryIsAClearStartupError() async throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try Data((0..<4096).map { _ in UInt8.random(in: 0...255) }).write(
      to: URL(fileURLWithPath: dir).appendingPathComponent("history.sqlite3"))
    let corrupt = try ChildProcess(
      binary,
      ["serve", "--host", "127.0.0.1", "--tcp-port", "any", "--udp-port", "0", "--http-port", "0",
       "--no-advertise", "--data-dir", dir])
    #expect(try await corrupt.waitForExit() == 1)
    #expect(corrupt.stderr.contains("history.sqlite3"))
    #expect(corrupt.stderr.contains("not a database"))
    // A data directory whose path runs through a regular file.
    let file = dir + "/plain-file"
    _ = FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
    let blocked = try ChildProcess(
      binary,
      ["serve", "--host", "127.0.0.1", "--tcp-port", "any", "--udp-port", "0", "--http-port", "0",
       "--no-advertise", "--data-dir", file + "/data"])
    #expect(try await blocked.waitForExit() == 1)
    #expect(blocked.stderr.contains("cannot open history"))
  }
}

/// A store that fills up while the server runs (the database size cap stands in for a
/// full disk): failures are reported, members keep receiving live messages.
@Suite(.onTestThreads)
struct FullStoreTests {
  @Test func aFullStoreIsReportedAndLiveDeliveryContinues() async throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sb-full-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try await withServer({
      $0.broker = { c in
        var store = SQLiteStoreConfiguration(retentionCount: c.historyLimit)
        store.maxDatabaseBytes = 96 * 1024
        return LocalRoomBroker(store: try SQLiteHistoryStore(directory: dir, configuration: store))
      }
    }) { server in
      let reader = try LineClient(server.tcpAddress!)
      try reader.sendLine("iam:reader")
      try await eventually { server.hub.who(room: "lobby") == ["reader"] }
      let writer = try WebSocketTestClient(server.httpAddress!)
      try writer.send(text: "writer")
      let payload = String(repeating: "y", count: 2000)
      var notStored = 0
      for i in 0..<200 {
        try writer.send(text: #"{"type":"message","data":{"text":"\#(i) \#(payload)","ref":\#(i)}}"#)
      }
      for i in 0..<200 {
        try reader.expectLine { $0.hasPrefix("writer: \(i) ") }
      }
      try await eventually("store failures counted") { server.metrics.storeFailures.load(ordering: .relaxed) > 0 }
      // Every message got an answer: an ack, or an error saying it was not stored.
      var answered = 0
      while answered < 200 {
        let text = try writer.nextText()
        if text.contains(#""type":"ack""#) { answered += 1 }
        if text.contains(#""code":"not_stored""#) {
          answered += 1
          notStored += 1
        }
      }
      #expect(notStored > 0)
    }
  }
}
