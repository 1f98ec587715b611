import Foundation
import SwitchboardIO
import SwitchboardTestSupport
import Testing

/// The real `switchboard` binary, driven by the real `nc`.
@Suite(.onTestThreads, .enabled(ifAvailable: Executables.switchboard != nil, "build the switchboard executable first"))
struct CLITests {
  let binary = Executables.switchboard ?? ""

  private func startServer(_ extra: [String] = []) async throws -> (ServeProcess, tcp: Int, udp: Int, http: Int) {
    let server = try await ServeProcess.start(["--ephemeral"] + extra)
    return (server, server.tcp, server.udp, server.http)
  }

  @Test(.enabled(ifAvailable: Executables.tool("nc") != nil, "needs nc (netcat-openbsd)"))
  func ncChatsWithTheServerAndHearsTheGoodbyeOnSIGTERM() async throws {
    let (server, tcp, udp, _) = try await startServer()
    // The banner follows the listening line.
    try await server.waitForOutput("tcp://127.0.0.1:\(tcp)")
    // The observer is in the room before nc joins, or it could miss the join.
    let observer = try LineClient(SocketAddress(host: "127.0.0.1", port: tcp))
    try observer.join(as: "observer")
    let nc = try ncJoined(as: "ncuser", port: tcp, heardBy: observer)
    nc.write("hello from nc\n")
    try observer.expectLine("ncuser: hello from nc")
    try observer.sendLine("hello nc")
    try await nc.waitForOutput("observer: hello nc\n")

    let ncu = try ChildProcess(Executables.tool("nc")!, ["-u", "127.0.0.1", "\(udp)"])
    // What a plain `nc -u` user sees and types (docs/PROTOCOLS.md): the echo and, for a line
    // of a dozen bytes or more, the code to send back; then they are a member.
    ncu.write("hello, anyone there?\n")
    try await ncu.waitForOutput("Server received: hello, anyone there?\n")
    let code = try await ncu.waitForLine { line -> String? in
      guard line.hasPrefix("* send /ok "), line.hasSuffix(" to chat") else { return nil }
      return String(line.dropFirst("* send /ok ".count).dropLast(" to chat".count))
    }
    ncu.write("/ok \(code)\n")
    try await ncu.waitForOutput("* ok, you are in lobby\n")
    ncu.write("datagram from nc -u\n")
    try await ncu.waitForOutput("Server received: datagram from nc -u\n")
    try observer.expectLine { $0.hasSuffix(": datagram from nc -u") }

    server.signal(SIGTERM)
    try await nc.waitForOutput("* server is going away: server shutting down\n")
    #expect(try await server.waitForExit() == 0)
    try observer.expectLine("* server is going away: server shutting down")
    try observer.expectClosed()
    ncu.signal(SIGTERM)
  }

  /// An `nc` connected to the server whose `iam:` the observer heard announced as the join.
  /// The line must reach the server within its name wait (300 ms) of the connect; a
  /// machine running every suite at once can start nc too slowly for that (nc then joins
  /// as "Client N" and is renamed), so such a miss is retried with a new nc, twice. A
  /// server that ignores `iam:` fails every time.
  private func ncJoined(as name: String, port: Int, heardBy observer: LineClient) throws -> ChildProcess {
    var announced: [String] = []
    for _ in 0..<3 {
      let nc = try ChildProcess(Executables.tool("nc")!, ["127.0.0.1", "\(port)"])
      nc.write("iam:\(name)\n")
      let join = try observer.expectLine { $0.hasSuffix(" has joined") }
      if join == "* \(name) has joined" { return nc }
      announced.append(join)
      nc.stop()
    }
    throw TestFailure("nc never joined as \(name): \(announced)")
  }

  @Test func pastMaxUDPMembersAProofIsToldTooMany() async throws {
    let (server, _, udp, _) = try await startServer(["--max-udp-members", "1"])
    let address = try SocketAddress(host: "127.0.0.1", port: udp)
    let first = try DatagramPeer(address)
    try first.prove()
    let second = try DatagramPeer(address)
    try second.send("/ok" + String(repeating: " ", count: 61))
    let code = try second.expectOffer()
    try second.send("/ok \(code)")
    try second.expect { $0 == "! too many UDP members (1); try again later, or use tcp:// or ws://\n" }
    server.signal(SIGINT)
    #expect(try await server.waitForExit() == 0)
  }

  @Test func sendDeliversOneMessage() async throws {
    let (server, tcp, udp, _) = try await startServer()
    // In the room before `send` connects, or the message could go out before it joined.
    let observer = try LineClient(SocketAddress(host: "127.0.0.1", port: tcp))
    try observer.join(as: "observer")
    let send = try ChildProcess(binary, ["send", "tcp://127.0.0.1:\(tcp)", "--name", "bot", "hello", "world"])
    #expect(try await send.waitForExit() == 0)
    try observer.expectLine("bot: hello world")
    let sendUDP = try ChildProcess(binary, ["send", "udp://127.0.0.1:\(udp)", "over udp"])
    #expect(try await sendUDP.waitForExit() == 0)
    try observer.expectLine { $0.hasSuffix(": over udp") }
    server.signal(SIGINT)
    #expect(try await server.waitForExit() == 0)
  }

  @Test func usageErrorsExit64AndHelpExits0() async throws {
    let help = try ChildProcess(binary, ["serve", "--help"])
    #expect(try await help.waitForExit() == 0)
    #expect(help.stdout.contains("--tcp-port N"))
    let bad = try ChildProcess(binary, ["serve", "--tcp-prot", "9", "--no-advertise"])
    #expect(try await bad.waitForExit() == 64)
    #expect(bad.stderr.contains("unknown option --tcp-prot"))
    let badPort = try ChildProcess(binary, ["serve", "--tcp-port", "70000", "--no-advertise"])
    #expect(try await badPort.waitForExit() == 64)
    let unknown = try ChildProcess(binary, ["frobnicate"])
    #expect(try await unknown.waitForExit() == 64)
    let nobody = try RefusingPort()
    let refused = try ChildProcess(binary, ["send", "tcp://127.0.0.1:\(nobody.port)", "x"])
    #expect(try await refused.waitForExit() == 1)
    #expect(refused.stderr.contains("connection refused"))
  }

  @Test(arguments: SelectorBackend.available)
  func everyBackendThisMachineRunsServesTheFanOut(backend: SelectorBackend) async throws {
    let (server, tcp, _, _) = try await startServer(["--backend", backend.rawValue])
    let address = try SocketAddress(host: "127.0.0.1", port: tcp)
    // c0 is in the room (its /who answer lists it) before anyone else connects, so it
    // hears every later join; joins arrive in any order (the clients are spread over the
    // server's loops), and once c0 has heard all of them everybody is in the room.
    let first = try LineClient(address)
    try first.join(as: "c0")
    var clients = [first]
    for i in 1..<20 {
      let client = try LineClient(address)
      try client.sendLine("iam:c\(i)")
      clients.append(client)
    }
    var joined = Set<String>()
    while joined.count < 19 { joined.insert(try first.expectLine { $0.hasSuffix(" has joined") }) }
    for round in 0..<3 { try clients[0].sendLine("round \(round)") }
    for client in clients.dropFirst() {
      for round in 0..<3 { try client.expectLine { $0 == "c0: round \(round)" } }
    }
    server.signal(SIGTERM)
    #expect(try await server.waitForExit() == 0)
  }

  @Test func anUnknownBackendIsAUsageError() async throws {
    let bad = try ChildProcess(binary, ["serve", "--backend", "kqueue", "--no-advertise", "--ephemeral"])
    #expect(try await bad.waitForExit() == 64)
    #expect(bad.stderr.contains("--backend must be epoll, io_uring or dispatch, not 'kqueue'"))
  }

  @Test func aPortInUseIsAClearStartupError() async throws {
    let (server, tcp, _, _) = try await startServer()
    let second = try ChildProcess(binary, ["serve", "--host", "127.0.0.1", "--tcp-port", "\(tcp)", "--udp-port", "0", "--http-port", "0", "--no-advertise"])
    #expect(try await second.waitForExit() == 1)
    #expect(second.stderr.contains("port in use"))
    server.signal(SIGTERM)
    #expect(try await server.waitForExit() == 0)
  }

  @Test func benchMeasuresAFullDeliveryAgainstTheRealServer() async throws {
    let (server, tcp, _, http) = try await startServer()
    for (url, proto) in [("ws://127.0.0.1:\(http)/rooms/bench", "json"), ("ws://127.0.0.1:\(http)/", "text"),
                         ("tcp://127.0.0.1:\(tcp)", "line")] {
      let bench = try ChildProcess(
        binary,
        ["bench", url, "--protocol", proto, "--connections", "20", "--senders", "2", "--rate", "200",
         "--duration", "1", "--warmup", "0.2", "--json", "--quiet", "--server-pid", "\(server.pid)"])
      #expect(try await bench.waitForExit(timeout: .seconds(30)) == 0, "\(bench.stderr)")
      let line = try #require(bench.stdout.split(separator: "\n").last.map(String.init))
      let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      let ratio = (report["delivery_ratio"] as? NSNumber)?.doubleValue ?? (report["deliveryRatio"] as? NSNumber)?.doubleValue
      #expect(ratio == 1.0, "\(proto): \(line)")
      // The server's CPU over the window, and the user-space part of it (the rest is the
      // kernel's): both read from the server's /proc entry, so the part is within the whole.
      let cpu = try #require((report["server_cpu_s"] as? NSNumber)?.doubleValue, "\(proto): \(line)")
      let user = try #require((report["server_user_cpu_s"] as? NSNumber)?.doubleValue, "\(proto): \(line)")
      #expect(user >= 0 && user <= cpu, "\(proto): \(line)")
      #expect(report["server_user_cpu_us_per_msg"] is NSNumber, "\(proto): \(line)")
    }
    server.signal(SIGTERM)
    #expect(try await server.waitForExit() == 0)
  }

  /// What benchmarks/scale-50k.sh relies on: a generator that only receives, given the
  /// sender's --start-at, counts exactly the sender's measured messages; a sender with two
  /// URLs (here the same server twice) spreads its connections and sees everything.
  @Test func receiveOnlyBenchCountsTheSendersWindowAndSeveralURLsWork() async throws {
    let (server, _, _, http) = try await startServer()
    let url = "ws://127.0.0.1:\(http)/rooms/spread"
    func report(_ p: ChildProcess) throws -> [String: Any] {
      let line = try #require(p.stdout.split(separator: "\n").last.map(String.init))
      return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
    // Both count the same window even when one of them starts late. Under the full suite's
    // load a process can start after the whole window has passed (nothing sent, nothing to
    // compare): then again with a later start.
    var sent = 0
    for (attempt, margin) in [5, 20, 40].enumerated() where sent == 0 {
      let room = "\(url)\(attempt)"
      let start = Int(Date().timeIntervalSince1970) + margin
      let common = ["--rate", "50", "--duration", "2", "--warmup", "0.2", "--start-at", "\(start)", "--json", "--quiet"]
      let receiver = try ChildProcess(binary, ["bench", room, "--connections", "10", "--senders", "0"] + common)
      let sender = try ChildProcess(binary, ["bench", room, room, "--connections", "10", "--senders", "1"] + common)
      #expect(try await sender.waitForExit(timeout: .seconds(40 + margin)) == 0, "\(sender.stderr)")
      #expect(try await receiver.waitForExit(timeout: .seconds(40 + margin)) == 0, "\(receiver.stderr)")
      sent = try #require((try report(sender)["sent"] as? NSNumber)?.intValue)
      guard sent > 0 else { continue }
      #expect((try report(sender)["delivery_ratio"] as? NSNumber)?.doubleValue == 1.0, "\(sender.stdout)")
      #expect((try report(receiver)["sent"] as? NSNumber)?.intValue == 0)
      #expect((try report(receiver)["delivered"] as? NSNumber)?.intValue == sent * 10, "\(receiver.stdout)")
    }
    #expect(sent > 0, "the sender never sent inside the window")
    let noStart = try ChildProcess(binary, ["bench", url, "--senders", "0", "--quiet"])
    #expect(try await noStart.waitForExit() == 64)
    #expect(noStart.stderr.contains("needs --start-at"))
    server.signal(SIGTERM)
    #expect(try await server.waitForExit() == 0)
  }
}
