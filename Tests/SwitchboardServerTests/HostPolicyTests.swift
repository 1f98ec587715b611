import Foundation
import SwitchboardIO
import SwitchboardServer
import SwitchboardTestSupport
import Testing

/// The `Host` check against DNS rebinding: the pure rule, then requests over real sockets to
/// an in-process server and to the real binary.
@Suite(.onTestThreads)
struct HostPolicyTests {
  private let policy = HostPolicy(
    allowing: ["chat.example.org", "*.corp.example"], machineNames: ["vm", "vm.lan.example"])

  @Test func theDefaultAllowsAddressesLocalhostNamesWithoutADotAndTheMachinesNames() {
    for host in [
      nil, "127.0.0.1", "127.0.0.1:1337", "127.9.8.7:80", "192.168.1.20:1337", "[::1]:1337", "[::1]",
      "[fe80::1%25eth0]:1337", "localhost", "LOCALHOST:1337", "app.localhost:1337", "localhost.", "vm:1337",
      "vm.lan.example", "vm.local:1337", "VM.local", "vm-2.local:1337", "vm.local.", "x", "switchboard:1337",
    ] {
      #expect(policy.check(host: host) == .allowed, "\(host ?? "nil")")
    }
  }

  @Test func aRebindingNameIsRefused() {
    for host in [
      "r.attacker.example:1337", "r.attacker.example", "localhost.attacker.example", "127.0.0.1.nip.io:1337",
      "other.local", "vm-x.local", "vm.lan.example.attacker.example", "evil-vm.local", "1.2.3",
      "chat.example.org.evil",
    ] {
      #expect(policy.check(host: host) != .allowed, "\(host)")
    }
    #expect(
      policy.check(host: "r.attacker.example:1337")
        == .refused(
          "host r.attacker.example:1337 is not served here (this server answers to its own names and addresses, "
            + "localhost, names without a dot and --allow-host)"))
  }

  @Test func malformedHostsAreRefused() {
    for host in [
      "", ":1337", "a b", "[::1", "[::1]x", "[nonsense]", "host:port", "host:99999999", "a..b", "ä.example",
    ] {
      #expect(policy.check(host: host) != .allowed, "\(host)")
    }
  }

  /// Random ASCII hosts (the characters that matter to the parser, weighted): never a trap,
  /// the verdict does not depend on letter case, and nothing allowed holds a character no
  /// host name, address or port has.
  @Test func randomHostsNeverTrapAndTheVerdictIgnoresCase() {
    var random = SeededGenerator(seed: 27)
    let alphabet = Array("ab.-_:[]%019fe.:x ")
    for _ in 0..<20_000 {
      let host = String(
        (0..<Int.random(in: 0...24, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
      let verdict = policy.check(host: host)
      #expect((verdict == .allowed) == (policy.check(host: host.uppercased()) == .allowed), "\(host)")
      if verdict == .allowed { #expect(!host.contains(" ") && !host.isEmpty, "\(host)") }
    }
  }

  @Test func allowedNamesAndPatternsAreExplicit() {
    #expect(policy.check(host: "chat.example.org:443") == .allowed)
    #expect(policy.check(host: "CHAT.Example.Org.") == .allowed)
    #expect(policy.check(host: "a.corp.example") == .allowed)
    #expect(policy.check(host: "a.b.corp.example:8080") == .allowed)
    #expect(policy.check(host: "corp.example") != .allowed)
    #expect(policy.check(host: "xcorp.example") != .allowed)
    let off = HostPolicy(allowing: ["*"], machineNames: [])
    #expect(off.check(host: "r.attacker.example") == .allowed)
    #expect(HostPolicy.normalize("Chat.Example.") == "chat.example")
    #expect(HostPolicy.normalize("*.Example.org") == "*.example.org")
    #expect(HostPolicy.normalize("*") == "*")
    #expect(HostPolicy.normalize("chat.example:1337") == nil)
    #expect(HostPolicy.normalize("http://chat.example") == nil)
    #expect(HostPolicy.normalize("*.") == nil)
    #expect(HostPolicy.normalize("") == nil)
  }

  private func status(
    _ address: SocketAddress, path: String = "/", host: String, origin: String? = nil, upgrade: Bool = false
  ) throws -> (Int, String) {
    try rawRequestStatus(address, path: path, host: host, origin: origin, upgrade: upgrade)
  }

  @Test func anUpgradeAndAPageNamingAForeignHostGet421OnEveryHTTPPath() async throws {
    try await withServer({
      $0.hostPolicy = HostPolicy(allowing: ["chat.example.org"], machineNames: ["vm"])
    }) { server in
      let http = server.httpAddress!
      let line = server.tcpAddress!
      let port = http.port
      let foreign = "r.attacker.example:\(port)"
      // The rebinding page: Host and Origin both the attacker's name, which the Origin rule
      // alone takes for the server's own page.
      let (upgradeStatus, body) = try status(
        http, host: foreign, origin: "http://\(foreign)", upgrade: true)
      #expect(upgradeStatus == 421)
      #expect(body.contains("host \(foreign) is not served here"))
      #expect(
        try status(http, path: "/rooms/lobby", host: foreign, origin: "http://\(foreign)", upgrade: true).0
          == 421)
      #expect(try status(http, host: foreign).0 == 421)
      #expect(try status(http, path: "/rooms/lobby", host: foreign).0 == 421)
      // An upgrade without Origin is no browser's: the CLI and the client library reach
      // the server by whatever name they were given.
      #expect(try status(http, host: foreign, upgrade: true).0 == 101)
      // The line port's browser path serves the page too.
      #expect(try status(line, host: "r.attacker.example:\(line.port)").0 == 421)
      // Probes answer whatever the name.
      #expect(try status(http, path: "/healthz", host: foreign).0 == 200)
      #expect(
        try status(http, path: "/metrics", host: foreign).1.contains("switchboard_http_hosts_refused_total 5")
      )

      for host in [
        "127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)", "chat.example.org", "vm.local:\(port)",
      ] {
        #expect(try status(http, host: host).0 == 200, "\(host)")
        #expect(try status(http, host: host, origin: "http://\(host)", upgrade: true).0 == 101, "\(host)")
      }
      #expect(try status(line, host: "127.0.0.1:\(line.port)").0 == 200)
    }
  }

  /// The real binary: the default refuses a foreign name and `--allow-host` adds one.
  @Test(.enabled(ifAvailable: Executables.switchboard != nil, "build the switchboard executable first"))
  func serveAllowHostAddsANameAndEveryOtherForeignNameIsRefused() async throws {
    let server = try await ServeProcess.start(["--ephemeral", "--allow-host", "chat.example.org", "--allow-host", "*.lan.example"], listeners: [.tcp, .http])
    defer { server.stop() }
    let http = try SocketAddress(host: "127.0.0.1", port: server.http)
    let foreign = "r.attacker.example:\(server.http)"
    #expect(try status(http, host: foreign, origin: "http://\(foreign)", upgrade: true).0 == 421)
    #expect(try status(http, host: "chat.example.org:\(server.http)", upgrade: true).0 == 101)
    #expect(
      try status(http, host: "box.lan.example", origin: "http://box.lan.example", upgrade: true).0 == 101)
    #expect(try status(http, host: "127.0.0.1:\(server.http)").0 == 200)
    #expect(try status(http, host: "localhost:\(server.http)").0 == 200)

    let usage = try ChildProcess(
      Executables.switchboard!, ["serve", "--no-advertise", "--allow-host", "chat.example.org:1337"])
    #expect(try await usage.waitForExit() == 64)
    #expect(usage.stderr.contains("--allow-host: 'chat.example.org:1337' is not a host name"))
  }

  /// Headless Chromium plays the rebinding page (Tests/peers/browser_rebinding.py): a name
  /// mapped to 127.0.0.1 inside the browser gets 421, its same-origin fetch and WebSocket
  /// fail; `localhost` and an `--allow-host` name get the page and a WebSocket.
  @Test(
    .enabled(
      ifAvailable: Executables.switchboard != nil && PeerScriptTests.python != nil
        && PeerScriptTests.chromium != nil,
      "needs the switchboard executable, chromium and python3 with websockets"))
  func chromiumOnARebindingNameIsRefusedAndOnAnAllowedNameChats() async throws {
    let server = try await ServeProcess.start(["--ephemeral", "--allow-host", "chat.example.org"], listeners: [.tcp, .http])
    defer { server.stop() }
    let peer = try ChildProcess(
      PeerScriptTests.python!,
      [
        "\(PeerScriptTests.peersDirectory)/browser_rebinding.py", "\(server.http)", "--allowed",
        "chat.example.org",
        "--timeout", "120",
      ])
    let status = try await peer.waitForExit(timeout: .seconds(180))
    #expect(status == 0, "\(peer.stdout.suffix(800)) \(peer.stderr.suffix(800))")
  }
}
