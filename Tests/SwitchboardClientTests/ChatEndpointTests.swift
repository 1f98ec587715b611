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
}
