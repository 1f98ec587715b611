import SwitchboardClient
import SwitchboardTestSupport
import Testing

@Suite(.onTestThreads)
struct ChatEndpointTests {
  @Test(arguments: [
    "ws://127.0.0.1:1337/rooms/lobby?name=ann", "wss://[::1]:8443/x", "tcp://localhost:8080", "udp://h:9",
    "dnssd://Switchboard%20on%20mac._switchboard._tcp.local/rooms/x?since=1",
    // Found by fuzz-url (Tests/Fuzz/url/corpus/slash-in-service-type): the decoded `%2F` of a
    // service type was written back as a `/`, which then began the path.
    "dnssd://a._sw%2Fx+y._tcp.local/p",
    // Found by fuzz-url (Tests/Fuzz/url/corpus/prepend-before-port-colon): U+070F, a grapheme
    // "prepend", joined the `:` of the port written after it into one Character, so the
    // description's port was read as part of the host.
    "tls://h\u{70F}", "ws://h\u{70F}:80/r\u{70F}?a\u{70F}=1",
  ])
  func aDescriptionReadsBackAsTheSameEndpoint(url: String) throws {
    let endpoint = try ChatEndpoint(url)
    #expect(try ChatEndpoint(endpoint.description) == endpoint)
  }

  // Found by fuzz-url (Tests/Fuzz/url/corpus/colon-in-host): a host with a colon or bracket
  // outside an IPv6 literal was accepted, and its description did not parse back.
  @Test(arguments: ["wss://:[:0]:8443/rooms/c", "ws://a:b:80/", "ws://a]:80", "ws://[[::1]:80/", "tcp://x[y"])
  func aHostWithAStrayColonOrBracketIsRejected(url: String) {
    #expect(throws: ChatClientError.invalidURL) { try ChatEndpoint(url) }
  }

  /// Delimiters are bytes: a combining mark after `/` or `?` does not hide them.
  @Test func delimitersBeforeACombiningMarkStillSplit() throws {
    let endpoint = try ChatEndpoint("ws://h:80/rooms/\u{301}x?\u{301}q=1")
    #expect(endpoint.host == "h" && endpoint.port == 80)
    #expect(endpoint.path == "/rooms/\u{301}x" && endpoint.query == "\u{301}q=1")
    #expect(endpoint.roomInPath == "\u{301}x")
  }
}
