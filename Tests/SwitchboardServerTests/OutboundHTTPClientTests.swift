import Foundation
import SwitchboardHTTP
import SwitchboardIO
import SwitchboardServer
import SwitchboardTestSupport
import Testing

/// The server's outbound HTTP client against a real backend (Tests/peers/backend.py,
/// aiohttp): answers of every framing, each typed failure, keep-alive reuse, and a request
/// that never gets an answer costing nothing but its own timeout.
@Suite(.onTestThreads, .enabled(ifAvailable: BackendPeer.isAvailable, "needs python3 with aiohttp"))
struct OutboundHTTPClientTests {
  @Test func postsAndReadsEveryFraming() async throws {
    let backend = try await BackendPeer()
    let client = try OutboundHTTPClient()
    defer { client.shutdown() }
    let echoed = try await client.post(
      OutboundURL(backend.url("/echo")), headers: ["Content-Type": "text/plain"], body: Array("hello".utf8)
    ).get()
    #expect(echoed.status == 200)
    #expect(echoed.body == Array("hello".utf8))
    let chunked = try await client.post(OutboundURL(backend.url("/chunked")), body: []).get()
    #expect(String(decoding: chunked.body, as: UTF8.self) == "one two three")
    let untilClose = try await client.post(OutboundURL("http://127.0.0.1:\(backend.closePort)/"), body: []).get()
    #expect(String(decoding: untilClose.body, as: UTF8.self) == "until the end")
  }

  @Test func reusesAKeptAliveConnection() async throws {
    let backend = try await BackendPeer()
    let client = try OutboundHTTPClient()
    defer { client.shutdown() }
    let url = try OutboundURL(backend.url("/echo"))
    var counts: [String] = []
    for index in 0..<5 {
      let answer = try await client.post(url, body: Array("\(index)".utf8)).get()
      #expect(answer.body == Array("\(index)".utf8))
      counts.append(answer.headers["X-Connections"] ?? "?")
    }
    // One connection carried all five (sequential requests reuse the idle one).
    #expect(counts == ["1", "1", "1", "1", "1"])
  }

  @Test func failuresAreTyped() async throws {
    let backend = try await BackendPeer()
    let client = try OutboundHTTPClient(configuration: OutboundHTTPConfiguration(maxAnswerBytes: 1024))
    defer { client.shutdown() }
    let status = await client.post(try OutboundURL(backend.url("/status/503")), body: [])
    #expect(status.failure == .status(503))
    let big = await client.post(try OutboundURL(backend.url("/big?bytes=4096")), body: [])
    #expect(big.failure == .tooLarge)
    let garbage = await client.post(try OutboundURL("http://127.0.0.1:\(backend.garbagePort)/"), body: [])
    guard case .malformed = garbage.failure else { throw TestFailure("garbage: \(garbage)") }
    // A port nobody listens on.
    let closed = try ReservedPort.reserve()
    let refused = await client.post(try OutboundURL("http://127.0.0.1:\(closed.port)/"), body: [])
    guard case .connect = refused.failure else { throw TestFailure("refused: \(refused)") }
    // After all that the client still works (failed connections were not kept).
    #expect(try await client.post(OutboundURL(backend.url("/echo")), body: [1]).get().body == [1])
  }

  @Test func aPeerThatNeverAnswersTimesOutAndBlocksNothing() async throws {
    let backend = try await BackendPeer()
    let client = try OutboundHTTPClient()
    defer { client.shutdown() }
    let started = ContinuousClock.now
    let hang = try OutboundURL(backend.url("/hang"))
    async let hung = client.post(hang, body: [], timeout: .milliseconds(800))
    // Meanwhile the same client answers other requests at once: the hanging one holds
    // only its own connection.
    for _ in 0..<3 {
      #expect(try await client.post(OutboundURL(backend.url("/echo")), body: [2]).get().body == [2])
    }
    let result = await hung
    #expect(result.failure == .timeout)
    #expect(ContinuousClock.now - started >= .milliseconds(800))
  }

  @Test func urlsAreCheckedWhenParsed() throws {
    #expect(try OutboundURL("http://example.com").target == "/")
    #expect(try OutboundURL("https://[::1]:8443/a?b").port == 8443)
    #expect(try OutboundURL("HTTP://h:1/x").hostHeader == "h:1")
    for bad in ["ftp://h/", "http://", "http://h:0/", "http://u@h/", "http://h/#f", "h:80", "http://h/a b"] {
      #expect(throws: OutboundHTTPError.self, "\(bad)") { try OutboundURL(bad) }
    }
  }
}

extension Result {
  /// The error, or `nil` for a success.
  var failure: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
}
