import SwitchboardDNS
import SwitchboardDiscovery
import SwitchboardServer
import SwitchboardTestSupport
import Synchronization
import Testing

@testable import SwitchboardClient

/// The shared half of the Apple resolver (``NetworkServiceResolver``): what `NWBrowser` and
/// a resolving `NWConnection` report, as the values the thin Apple code copies out of them,
/// into the client's ``MDNSResolvedService`` or ``ChatClientError``. Linux never runs
/// Network.framework; everything it would decide is decided here.
@Suite(.onTestThreads) struct BonjourResolutionTests {
  /// A browse result as `NWBrowser.Result` gives it: type and domain with their trailing dots,
  /// the TXT record as `NWTXTRecord.dictionary`.
  static func result(
    _ name: String = "SB Target", type: String = "_switchboard._tcp.", txt: [String: String]? = ["version": "1"],
    interface: UInt32 = 4
  ) -> BonjourInput.Result {
    BonjourInput.Result(name: name, type: type, domain: "local.", txt: txt, interface: interface)
  }

  static func resolution(_ instance: String = "SB Target", type: String = ChatService.lineType) throws
    -> BonjourResolution
  {
    BonjourResolution(service: try ChatService(instance: instance, type: type))
  }

  @Test func theInstanceIsPickedByNameIgnoringASCIICaseAndTheTrailingDots() throws {
    var machine = try Self.resolution()
    let others = [Self.result("SB Targets"), Self.result("Other"), Self.result("SB Target", type: "_http._tcp.")]
    #expect(machine.results(others) == .wait)
    #expect(machine.phase == .browsing)
    let mine = Self.result("sb target")
    #expect(machine.results(others + [mine]) == .resolve(mine))
    #expect(machine.phase == .resolving(mine))
    // Later result sets change nothing: one instance is resolved at a time.
    #expect(machine.results([Self.result()]) == .wait)
  }

  @Test func aResultWithATXTRecordThenTheLowestInterfaceIsPreferredWhateverTheSetsOrder() throws {
    let bare = Self.result(txt: nil, interface: 1)
    let onEight = Self.result(interface: 8)
    let onTwo = Self.result(interface: 2)
    for order in [[bare, onEight, onTwo], [onTwo, bare, onEight], [onEight, onTwo, bare]] {
      var machine = try Self.resolution()
      #expect(machine.results(Set(order)) == .resolve(onTwo))
    }
  }

  @Test func anIPv4AnswerBecomesTheServiceWithItsTXTAndPort() throws {
    var machine = try Self.resolution(type: ChatService.webType)
    let found = Self.result(type: "_http._tcp.", txt: ["ws": "7712", "path": "/", "room": "lobby", "version": "1"])
    _ = machine.results([found])
    guard case .finish(.success(let service)) = machine.resolved(host: .ipv4([10, 231, 12, 1]), port: 7712)
    else {
      Issue.record("no service: \(machine.phase)")
      return
    }
    #expect(service.instance == "SB Target")
    #expect(service.type == "_http._tcp")
    #expect(service.domain == "local")
    #expect(service.port == 7712)
    #expect(service.ipv4 == [DNSIPv4Address(10, 231, 12, 1)])
    #expect(service.ipv6.isEmpty)
    #expect(service.host == "10.231.12.1")
    #expect(service.interface == 4)
    #expect(service.txt.entries.map(\.description) == ["path=/", "room=lobby", "version=1", "ws=7712"])
    let endpoint = try ChatEndpoint("dnssd://SB%20Target._http._tcp.local")
    #expect(endpoint.endpoints(resolvedAs: service).map(\.description) == ["ws://10.231.12.1:7712/"])
    #expect(machine.phase == .finished)
  }

  @Test func aLinkLocalIPv6AnswerKeepsItsScopeAndAnIPv4MappedOneIsIPv4() throws {
    var machine = try Self.resolution()
    _ = machine.results([Self.result(interface: 0)])
    var linkLocal = [UInt8](repeating: 0, count: 16)
    linkLocal[0] = 0xFE
    linkLocal[1] = 0x80
    linkLocal[15] = 1
    guard case .finish(.success(let service)) = machine.resolved(host: .ipv6(linkLocal, scope: 7), port: 7710) else {
      Issue.record("no service")
      return
    }
    #expect(service.ipv6 == [DNSIPv6Address("fe80::1")!])
    #expect(service.interface == 7)
    let endpoint = try ChatEndpoint("dnssd://SB%20Target._switchboard._tcp.local")
    #expect(endpoint.endpoints(resolvedAs: service).map(\.host) == ["fe80::1%7"])

    let mapped: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF, 192, 168, 1, 20]
    let viaMapped = BonjourResolution.resolvedService(
      Self.result(), host: .ipv6(mapped, scope: nil), port: 7710, type: ChatService.lineType)
    #expect(viaMapped.ipv4 == [DNSIPv4Address(192, 168, 1, 20)])
    #expect(viaMapped.ipv6.isEmpty)
    #expect(viaMapped.interface == 4)
  }

  @Test func aHostNameAnswerIsConnectedToByNameAndBadTXTKeysAreLeftOut() {
    let service = BonjourResolution.resolvedService(
      Self.result(txt: ["version": "1", "": "x", "a=b": "c"]), host: .name("sbcli-a.local."), port: 7710,
      type: ChatService.lineType)
    #expect(service.host == "sbcli-a.local")
    #expect(service.ipv4.isEmpty && service.ipv6.isEmpty)
    #expect(service.txt.entries.map(\.description) == ["version=1"])
    let endpoint = try! ChatEndpoint("dnssd://SB%20Target._switchboard._tcp.local")
    #expect(endpoint.endpoints(resolvedAs: service).map(\.host) == ["sbcli-a.local"])
  }

  // MARK: Errors

  static let policyDenied = BonjourInput.Failure.dns(-65570)

  @Test func aBrowserWaitingOnTheLocalNetworkPermissionEndsDeniedAtTheDeadline() throws {
    var machine = try Self.resolution()
    #expect(machine.browserWaiting(Self.policyDenied) == .wait)
    guard case .finish(.failure(let error)) = machine.deadline(after: .seconds(5)) else {
      Issue.record("the deadline did not finish")
      return
    }
    #expect(error == .localNetworkDenied)
    #expect(error.description.contains("Settings ▸ Privacy & Security ▸ Local Network"), "\(error)")
    #expect(error.description.contains("NSLocalNetworkUsageDescription"), "\(error)")
    #expect(error.description.contains("NSBonjourServices"), "\(error)")
    #expect(error.description.contains("kDNSServiceErr_PolicyDenied (-65570)"), "\(error)")
  }

  @Test func aPermissionGrantedInThePromptIsNoDenial() throws {
    var machine = try Self.resolution()
    _ = machine.browserWaiting(Self.policyDenied)
    _ = machine.browserReady()
    #expect(machine.denial == nil)
    #expect(machine.deadline(after: .seconds(5)) == .finish(.failure(.serviceNotFound)))
  }

  @Test func aBrowserThatFailsDeniedEndsAtOnceAndOtherFailuresAreConnectFailed() throws {
    var denied = try Self.resolution()
    #expect(denied.browserFailed(Self.policyDenied) == .finish(.failure(.localNetworkDenied)))
    #expect(denied.deadline(after: .seconds(5)) == .wait, "finished once")
    for failure in [BonjourInput.Failure.dns(-65563), .posix(50), .tls(-9806), .other("gone")] {
      var machine = try Self.resolution()
      #expect(machine.browserFailed(failure) == .finish(.failure(.connectFailed)), "\(failure)")
    }
    var waitingOnOther = try Self.resolution()
    _ = waitingOnOther.browserWaiting(.posix(50))
    #expect(waitingOnOther.deadline(after: .seconds(5)) == .finish(.failure(.serviceNotFound)))
  }

  @Test func aResolvingConnectionRefusedByTheLocalNetworkPolicyIsDenied() throws {
    var byPath = try Self.resolution()
    _ = byPath.results([Self.result()])
    #expect(byPath.resolverWaiting(.posix(65), localNetworkDenied: true) == .wait)
    #expect(byPath.deadline(after: .seconds(5)) == .finish(.failure(.localNetworkDenied)))
    var byCode = try Self.resolution()
    _ = byCode.results([Self.result()])
    #expect(byCode.resolverFailed(Self.policyDenied) == .finish(.failure(.localNetworkDenied)))
    var otherwise = try Self.resolution()
    _ = otherwise.results([Self.result()])
    #expect(otherwise.resolverFailed(.posix(61)) == .finish(.failure(.connectFailed)))
  }

  @Test func cancellingFinishesOnceAsClosed() throws {
    var machine = try Self.resolution()
    #expect(machine.cancel() == .finish(.failure(.closed)))
    #expect(machine.cancel() == .wait)
    #expect(machine.results([Self.result()]) == .wait)
  }

  // MARK: The run

  @Test func aRunFindsTheServerAndStopsTheBrowserAndTheConnection() async throws {
    let platform = ScriptedBonjour(results: [Self.result("Other"), Self.result()], host: .ipv4([127, 0, 0, 1]))
    let run = BonjourResolveRun(service: try ChatService(instance: "SB Target"), timeout: .seconds(30))
    let service = try await run.run(on: platform)
    #expect(service.ipv4 == [DNSIPv4Address(127, 0, 0, 1)])
    #expect(service.port == 7710)
    #expect(platform.log == ["browse _switchboard._tcp in local.", "resolve SB Target", "stop", "stop"])
  }

  @Test func aRunWaitingOnTheLocalNetworkPermissionThrowsDeniedAtItsTimeout() async throws {
    let platform = ScriptedBonjour(waiting: Self.policyDenied)
    let run = BonjourResolveRun(service: try ChatService(instance: "SB Target"), timeout: .milliseconds(100))
    await #expect(throws: ChatClientError.localNetworkDenied) { try await run.run(on: platform) }
    #expect(platform.log == ["browse _switchboard._tcp in local.", "stop"])
  }

  @Test func aCancelledRunThrowsClosedAndStopsBrowsing() async throws {
    let platform = ScriptedBonjour()
    let service = try ChatService(instance: "SB Target")
    let task = Task { try await BonjourResolveRun(service: service, timeout: .seconds(30)).run(on: platform) }
    try await eventually("the browse to start") { platform.log.count == 1 }
    task.cancel()
    await #expect(throws: ChatClientError.closed) { try await task.value }
    #expect(platform.log == ["browse _switchboard._tcp in local.", "stop"])
  }

  /// A client connects to a real server through the run: what the Apple resolver does, with
  /// the Network.framework calls replaced by the script.
  @Test func aClientConnectsThroughTheRunToARealServer() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let platform = ScriptedBonjour(
      results: [Self.result()], host: .ipv4([127, 0, 0, 1]), port: UInt16(server.tcpAddress!.port))
    var config = ChatClient.Configuration.forTesting
    config.resolver = RunResolver(platform: platform)
    let client = try ChatProbe("dnssd://SB%20Target._switchboard._tcp.local", name: "finder", configuration: config)
    try await client.waitReady()
    await client.stop()
  }
}

/// The resolver the Apple one is, on a scripted platform.
struct RunResolver: ChatServiceResolver {
  let platform: ScriptedBonjour
  func resolve(_ service: ChatService) async throws(ChatClientError) -> MDNSResolvedService {
    try await BonjourResolveRun(service: service, timeout: .seconds(5)).run(on: platform)
  }
}

/// A ``BonjourPlatform`` that answers as the test says, from another task (as
/// Network.framework answers on its queue), and logs what it was asked.
final class ScriptedBonjour: BonjourPlatform {
  private let results: [BonjourInput.Result]
  private let host: BonjourInput.Host?
  private let port: UInt16
  private let waiting: BonjourInput.Failure?
  private let calls = Mutex<[String]>([])

  init(
    results: [BonjourInput.Result] = [], host: BonjourInput.Host? = nil, port: UInt16 = 7710,
    waiting: BonjourInput.Failure? = nil
  ) {
    self.results = results
    self.host = host
    self.port = port
    self.waiting = waiting
  }

  var log: [String] { calls.withLock { $0 } }

  func browse(type: String, domain: String, reporting run: BonjourResolveRun) -> @Sendable () -> Void {
    calls.withLock { $0.append("browse \(type) in \(domain)") }
    let (results, waiting) = (self.results, self.waiting)
    Task {
      if let waiting { run.browserWaiting(waiting) } else { run.browserReady() }
      if !results.isEmpty { run.results(results) }
    }
    return { self.calls.withLock { $0.append("stop") } }
  }

  func resolve(_ result: BonjourInput.Result, reporting run: BonjourResolveRun) -> @Sendable () -> Void {
    calls.withLock { $0.append("resolve \(result.name)") }
    let (host, port) = (self.host, self.port)
    Task { if let host { run.resolved(host: host, port: port) } }
    return { self.calls.withLock { $0.append("stop") } }
  }
}
