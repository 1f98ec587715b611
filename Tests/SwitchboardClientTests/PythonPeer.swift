import Foundation
import Synchronization
import SwitchboardTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A Python program run as a test peer, with its stdout collected for deadline-bounded
/// checks. It is killed by PID in ``stop()`` (and in `deinit` as a backstop).
final class PythonPeer: @unchecked Sendable {
  // Safety: `process` and the pipe are set up in init and then used only through their
  // thread-safe Foundation APIs; the collected output is behind a mutex.
  private let process = Process()
  private let stdoutPipe = Pipe()
  private let output = OutputBox()

  /// Starts `python3 -u -c script arguments…` (its stderr shows in the test log).
  convenience init(script: String, arguments: [String] = []) throws {
    try self.init(
      executable: "/usr/bin/env", arguments: ["python3", "-u", "-c", script] + arguments, environment: [:],
      showErrors: true)
  }

  /// Starts `python3 -u -m module arguments…`.
  convenience init(module: String, arguments: [String] = []) throws {
    try self.init(executable: "/usr/bin/env", arguments: ["python3", "-u", "-m", module] + arguments, environment: [:])
  }

  /// Starts any program (e.g. node) with extra environment variables, collecting stdout.
  init(executable: String, arguments: [String], environment: [String: String], showErrors: Bool = false) throws {
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if !environment.isEmpty {
      process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    process.standardOutput = stdoutPipe
    process.standardError = showErrors ? FileHandle.standardError : FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    let output = self.output
    stdoutPipe.fileHandleForReading.readabilityHandler = { handle in
      let data = handle.availableData
      output.bytes.withLock { $0.append(contentsOf: data) }
    }
    try runSerialized(process)
  }

  deinit { stop() }

  /// Everything the peer printed so far.
  var stdout: String { output.bytes.withLock { String(decoding: $0, as: UTF8.self) } }

  /// Kills the peer (by its PID) and waits for it.
  func stop() {
    stdoutPipe.fileHandleForReading.readabilityHandler = nil
    guard process.isRunning else { return }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }

  /// Waits until stdout contains `text`.
  func waitForOutput(_ text: String, timeout: Duration = .seconds(15)) async throws {
    try await eventually(
      timeout: timeout, "peer output \(text.debugDescription) (got \(stdout.debugDescription))"
    ) {
      stdout.contains(text)
    }
  }

  /// Waits for the first line of stdout that `parse` accepts.
  func waitForLine<T>(timeout: Duration = .seconds(15), _ parse: (Substring) -> T?) async throws -> T {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while ContinuousClock.now < deadline {
      for line in stdout.split(separator: "\n") {
        if let value = parse(line) { return value }
      }
      guard process.isRunning else { throw TestFailure("peer exited: \(stdout)") }
      try await Task.sleep(for: .milliseconds(10))
    }
    throw TestFailure("no matching line from the peer within \(timeout) (got \(stdout.debugDescription))")
  }

  /// Whether `python3 -c 'import websockets'` works (the tests that need it skip
  /// otherwise; scripts/install-test-peers.sh installs it).
  static let hasWebsockets: Bool = succeeds(["python3", "-c", "import websockets"])

  /// Whether `python3` runs at all.
  static let hasPython: Bool = succeeds(["python3", "-c", "pass"])

  private static func succeeds(_ arguments: [String]) -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    do {
      try runSerialized(process)
    } catch {
      return false
    }
    process.waitUntilExit()
    return process.terminationStatus == 0
  }
}

/// Output collected from a peer's pipe on Foundation's reader thread.
private final class OutputBox: Sendable {
  let bytes = Mutex<[UInt8]>([])
}

extension PythonPeer {
  /// A `websockets` echo server on 127.0.0.1, port 0; prints its port, then for every
  /// connection `closed CODE REASON` when it ends. Paths change what it does first:
  /// `/close` closes with 4001 "bye"; `/ping` pings with "hello"; `/info` sends the
  /// chosen subprotocol and the `X-Test` request header as two text messages. Then it
  /// echoes every message.
  /// Arguments: `deflate` or `off`; then the subprotocols it speaks.
  static let echoServerScript = """
    import asyncio, sys
    import websockets

    compression = "deflate" if sys.argv[1] == "deflate" else None
    subprotocols = sys.argv[2:] or None

    def request_info(ws):
        request = getattr(ws, "request", None)
        if request is not None:
            return request.path, request.headers
        return ws.path, ws.request_headers

    async def handler(ws, *unused):
        path, headers = request_info(ws)
        try:
            if path.startswith("/close"):
                await ws.close(4001, "bye")
            else:
                if path.startswith("/ping"):
                    await ws.ping(b"hello")
                if path.startswith("/info"):
                    await ws.send(ws.subprotocol or "-")
                    await ws.send(headers.get("X-Test", "-"))
                async for message in ws:
                    await ws.send(message)
        except websockets.ConnectionClosed:
            pass
        print("closed", ws.close_code, ws.close_reason, flush=True)

    async def main():
        async with websockets.serve(handler, "127.0.0.1", 0, max_size=None, compression=compression,
                                    subprotocols=subprotocols) as server:
            print("port", server.sockets[0].getsockname()[1], flush=True)
            await asyncio.Future()

    asyncio.run(main())
    """

  /// Starts the echo server and waits for its port.
  static func echoServer(compression: Bool = false, subprotocols: [String] = []) async throws -> (
    PythonPeer, Int
  ) {
    let peer = try PythonPeer(
      script: echoServerScript, arguments: [compression ? "deflate" : "off"] + subprotocols)
    let port = try await peer.waitForLine { line -> Int? in
      line.hasPrefix("port ") ? Int(line.dropFirst(5)) : nil
    }
    return (peer, port)
  }

  /// Python's `http.server` on 127.0.0.1, port 0, serving an empty directory (so any
  /// path is a 404).
  static func httpServer(directory: String) async throws -> (PythonPeer, Int) {
    let peer = try PythonPeer(
      module: "http.server", arguments: ["0", "--bind", "127.0.0.1", "--directory", directory])
    // "Serving HTTP on 127.0.0.1 port 40123 (http://127.0.0.1:40123/) ..."
    let port = try await peer.waitForLine { line -> Int? in
      guard let range = line.range(of: " port ") else { return nil }
      return Int(line[range.upperBound...].prefix { $0.isNumber })
    }
    return (peer, port)
  }
}
