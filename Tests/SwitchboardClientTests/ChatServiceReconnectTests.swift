import SwitchboardClient
import SwitchboardDNS
import SwitchboardDiscovery
import SwitchboardServer
import SwitchboardTestSupport
import Synchronization
import Testing

/// A ``ChatServiceResolver`` that answers what the test says, and counts the questions.
final class ScriptedResolver: ChatServiceResolver {
  private let answer = Mutex<MDNSResolvedService?>(nil)
  private let asked = Atomic<Int>(0)

  /// What the next resolutions return; `nil`: nothing answers.
  func answer(_ service: MDNSResolvedService?) { answer.withLock { $0 = service } }

  /// How many times the client asked.
  var resolutions: Int { asked.load(ordering: .relaxed) }

  func resolve(_ service: ChatService) async throws(ChatClientError) -> MDNSResolvedService {
    asked.add(1, ordering: .relaxed)
    guard let found = answer.withLock({ $0 }), service.matches(found) else {
      throw ChatClientError.serviceNotFound
    }
    return found
  }
}

/// Service endpoints on real loopback servers, found through a scripted resolver (no
/// multicast): the client resolves before its first connect and again before every
/// reconnect, so it follows a server that comes back on other ports.
@Suite(.onTestThreads) struct ChatServiceReconnectTests {
  /// Where `server` is, as DNS-SD would describe it for `type`.
  static func advertised(_ server: ChatServer, type: String, ipv4: [String] = ["127.0.0.1"])
    -> MDNSResolvedService
  {
    let http = UInt16(server.httpAddress!.port)
    let port: UInt16 =
      switch type {
      case ChatService.datagramType: UInt16(server.udpAddress!.port)
      case ChatService.webType: http
      default: UInt16(server.tcpAddress!.port)
      }
    let txt = try! DNSTXT(strings: ["version=1", "room=lobby", "ws=\(http)", "path=/"])
    return found(type: type, port: port, txt: txt, ipv4: ipv4)
  }

  @Test(arguments: [ChatService.lineType, ChatService.datagramType, ChatService.webType])
  func reconnectsByResolvingAgainWhenTheServerComesBackOnOtherPorts(type: String) async throws {
    let first = try startServer()
    defer { first.shutdown() }
    let resolver = ScriptedResolver()
    resolver.answer(Self.advertised(first, type: type))
    var config = ChatClient.Configuration.forTesting
    config.resolver = resolver
    // UDP has no connection to lose: only the heartbeat notices the restart. (A timeout of
    // 300 ms was missed now and then on a loaded machine, so that the reconnect to the
    // second server took two attempts.)
    if type == ChatService.datagramType {
      config.heartbeat = .init(interval: .milliseconds(100), timeout: .seconds(1))
    }
    let url = "dnssd://SB%20Target.\(type).local"
    let client = try ChatProbe(url, name: "nomad", configuration: config)
    let watcher = try ChatProbe(wsURL(first), name: "watcher")
    try await client.waitReady()
    try await watcher.waitReady()
    try await client.client.send("before")
    _ = try await watcher.waitForMessage("before")
    #expect(resolver.resolutions == 1)
    let connected = try await client.waitFor("connected") { if case .connected = $0 { true } else { false } }
    if case .connected(let c) = connected {
      #expect(c.service == Self.advertised(first, type: type))
      #expect(!c.url.hasPrefix("dnssd:"))
    }

    // The server goes away; while nothing answers, each attempt fails as not found.
    resolver.answer(nil)
    let mark = client.events.count
    first.shutdown()
    try await client.waitFor("service not found", from: mark) {
      if case .error(let e) = $0 { e == .serviceNotFound } else { false }
    }
    let second = try startServer()
    defer { second.shutdown() }
    #expect(second.tcpAddress!.port != first.tcpAddress!.port)
    resolver.answer(Self.advertised(second, type: type))
    let watcher2 = try ChatProbe(wsURL(second), name: "watcher2")
    try await watcher2.waitReady()
    try await client.waitConnected(count: 2)
    if type == ChatService.webType { try await client.waitReady(count: 2) }
    try await client.client.send("after")
    _ = try await watcher2.waitForMessage("after")
    #expect(resolver.resolutions >= 3)  // first connect, at least one miss, the reconnect
    let last = client.events.last { if case .connected = $0 { true } else { false } }
    if case .connected(let c)? = last {
      #expect(c.service?.port == Self.advertised(second, type: type).port)
      #expect(c.reconnects == 1)
    }
    await client.stop()
    await watcher.stop()
    await watcher2.stop()
  }

  @Test func theNextAddressIsTriedWhenTheFirstRefuses() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let resolver = ScriptedResolver()
    // The server listens on 127.0.0.1 only: 127.0.0.2 (also loopback) refuses.
    resolver.answer(Self.advertised(server, type: ChatService.lineType, ipv4: ["127.0.0.2", "127.0.0.1"]))
    var config = ChatClient.Configuration.forTesting
    config.resolver = resolver
    let client = try ChatProbe(
      "dnssd://SB%20Target._switchboard._tcp", name: "second-try", configuration: config)
    let watcher = try ChatProbe(wsURL(server), name: "watcher")
    try await watcher.waitReady()
    let connected = try await client.waitFor("connected") { if case .connected = $0 { true } else { false } }
    if case .connected(let c) = connected { #expect(c.url == "tcp://127.0.0.1:\(server.tcpAddress!.port)") }
    #expect(!client.events.contains { if case .error = $0 { true } else { false } })
    try await client.client.send("via the second address")
    _ = try await watcher.waitForMessage("via the second address")
    #expect(resolver.resolutions == 1)
    await client.stop()
    await watcher.stop()
  }

  @Test func aServiceThatNeverAnswersEndsInServiceNotFoundThenGaveUp() async throws {
    let resolver = ScriptedResolver()
    var config = ChatClient.Configuration.forTesting
    config.resolver = resolver
    config.reconnect = ReconnectPolicy(initialDelay: .milliseconds(20), maxAttempts: 2)
    let client = try ChatProbe("dnssd://Nobody._switchboard._tcp.local", name: "x", configuration: config)
    try await eventually("the client to give up") {
      client.events.contains { if case .error(.gaveUp) = $0 { true } else { false } }
    }
    let errors = client.events.compactMap { event -> ChatClientError? in
      if case .error(let e) = event { e } else { nil }
    }
    #expect(errors == [.serviceNotFound, .serviceNotFound, .serviceNotFound, .gaveUp])
    #expect(resolver.resolutions == 3)
    await client.stop()
  }
}
