import Foundation
import SwitchboardClient
import SwitchboardIO
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Connection failures: refused, rejected, silent servers, bad URLs.
@Suite(.onTestThreads)
struct WebSocketClientConnectTests {
  @Test func refusedConnectionIsConnectFailed() async throws {
    let bound = try RawSocket(listen: false)  // bound, not listening: connects are refused
    let error = await #expect(throws: WebSocketClientError.connectFailed) {
      _ = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(bound.port)/")
    }
    #expect(error?.ioError?.errno == ECONNREFUSED)
  }

  @Test(.enabled(ifAvailable: PythonPeer.hasPython, "python3 not found"))
  func non101ResponseIsHandshakeRejectedWithItsStatus() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("switchboard-client-empty-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let (server, port) = try await PythonPeer.httpServer(directory: directory.path)
    defer { server.stop() }
    let error = await #expect(throws: WebSocketClientError.handshakeRejected) {
      _ = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/no-such-thing")
    }
    #expect(error?.status == 404)
  }

  @Test func silentServerTimesOut() async throws {
    let listener = try RawSocket(listen: true)  // the kernel accepts; nobody answers
    let start = ContinuousClock.now
    await #expect(throws: WebSocketClientError.timeout) {
      _ = try await WebSocketClient.connect(
        to: "ws://127.0.0.1:\(listener.port)/", configuration: .init(connectTimeout: .milliseconds(300)))
    }
    let elapsed = ContinuousClock.now - start
    #expect(elapsed >= .milliseconds(300))
    #expect(elapsed < .seconds(30))  // only proves it did not hang; machines are shared
  }

  @Test func cancellingConnectStopsIt() async throws {
    let listener = try RawSocket(listen: true)
    let attempt = Task {
      try await WebSocketClient.connect(to: "ws://127.0.0.1:\(listener.port)/")
    }
    // Cancelled once its TCP connection is in (it then waits for a handshake answer).
    try await eventually("the client's TCP connection") { listener.hasPendingConnection }
    attempt.cancel()
    let start = ContinuousClock.now
    let result = await attempt.result
    #expect(ContinuousClock.now - start < .seconds(30))  // did not hang
    #expect(throws: WebSocketClientError.cancelled) { try result.get() }
  }

  @Test func connectingFromACancelledTaskFailsAtOnce() async throws {
    // The cancellation reaches the channel before its start does: it must not connect
    // and then wait out the connect timeout on a server that never answers.
    let listener = try RawSocket(listen: true)
    var configuration = WebSocketClient.Configuration()
    configuration.connectTimeout = .seconds(60)
    let url = "ws://127.0.0.1:\(listener.port)/"
    let attempt = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await WebSocketClient.connect(to: url, configuration: configuration)
    }
    let start = ContinuousClock.now
    let result = await attempt.result
    #expect(ContinuousClock.now - start < .seconds(30))  // did not wait for the timeout
    #expect(throws: WebSocketClientError.cancelled) { try result.get() }
  }

  @Test func unknownSchemeIsUnsupported() async {
    await #expect(throws: WebSocketClientError.unsupportedScheme) {
      _ = try await WebSocketClient.connect(to: "http://127.0.0.1:1/")
    }
  }

  @Test(arguments: [
    "127.0.0.1:80/", "ws://", "ws://:80/", "ws://host:0/", "ws://host:99999/", "ws://host/a#b",
    "ws://user@host/", "ws://host/a b", "ws://[::1/",
  ])
  func malformedURLIsInvalidURL(_ url: String) async {
    await #expect(throws: WebSocketClientError.invalidURL) {
      _ = try await WebSocketClient.connect(to: url)
    }
  }
}

@Suite(.onTestThreads)
struct WebSocketURLTests {
  @Test func partsAreParsed() throws {
    let url = try WebSocketURL("WS://example.com:8080/rooms/lobby?since=3")
    #expect(url.scheme == .ws)
    #expect(url.host == "example.com")
    #expect(url.port == 8080)
    #expect(url.target == "/rooms/lobby?since=3")
    #expect(url.hostHeader == "example.com:8080")
  }

  @Test func defaultsFillTheGaps() throws {
    let url = try WebSocketURL("ws://example.com")
    #expect(url.port == 80)
    #expect(url.target == "/")
    #expect(url.hostHeader == "example.com")
    #expect(try WebSocketURL("wss://example.com?x=1").port == 443)
    #expect(try WebSocketURL("wss://example.com?x=1").target == "/?x=1")
  }

  @Test func ipv6HostsUseBrackets() throws {
    let url = try WebSocketURL("ws://[::1]:9000/chat")
    #expect(url.host == "::1")
    #expect(url.port == 9000)
    #expect(url.hostHeader == "[::1]:9000")
    #expect(url.description == "ws://[::1]:9000/chat")
  }

  @Test func otherSchemesAreUnsupported() {
    #expect(throws: WebSocketClientError.unsupportedScheme) { try WebSocketURL("http://example.com/") }
  }
}
