import Foundation
import SwitchboardIO
import SwitchboardTLS
import SwitchboardTestSupport
import Testing

/// `switchboard top` (the real binary) against a real `serve --admin-password`, its stdout
/// a pipe: plain lines with the room and its messages and no escape byte; on a terminal
/// (`script`'s) colours unless NO_COLOR; the refusals (wrong password, too many attempts,
/// the console off) with exit 2 and their words; usage errors with 64.
@Suite(
  .onTestThreads, .enabled(ifAvailable: Executables.switchboard != nil, "switchboard binary not built"))
struct TopPlainTests {
  static let password = "top-plain-password"

  /// `switchboard top ARGUMENTS`, the password in the environment unless `password` is nil.
  private func top(_ arguments: [String], password: String? = Self.password) throws -> ChildProcess {
    try ChildProcess(
      Executables.switchboard!, ["top"] + arguments,
      environment: password.map { ["SWITCHBOARD_ADMIN_PASSWORD": $0] } ?? [:])
  }

  /// A line member named `name` in `room`.
  private func member(_ name: String, in room: String, of server: ServeProcess) throws -> LineClient {
    let client = try LineClient(SocketAddress(host: "127.0.0.1", port: server.tcp))
    try client.join(as: name)
    try client.sendLine("/join \(room)")
    _ = try client.expectLine { $0.hasPrefix("* you are now in \(room)") }
    return client
  }

  @Test func plainLinesShowTheRoomItsMembersAndMessagesWithoutEscapes() async throws {
    let server = try await ServeProcess.start(["--ephemeral", "--admin-password", Self.password])
    defer { server.signal(SIGTERM) }
    let ann = try member("ann", in: "ops", of: server)
    try ann.sendLine("before top started")
    let top = try top(["127.0.0.1:\(server.http)", "--room", "ops"])
    defer { top.stop() }
    try await eventually("the first block") { top.stdout.contains("ROOM ops (1 members)") }
    try ann.sendLine("while top runs")
    try await eventually("the room, its member and both messages") {
      let out = top.stdout
      return out.contains("\n  ops ") && out.contains("\n  ann ") && out.contains("ann: before top started")
        && out.contains("ann: while top runs")
    }
    // A plain block shows the messages new since the one before: each message once.
    #expect(top.stdout.components(separatedBy: "ann: while top runs").count == 2, "\(top.stdout)")
    #expect(!top.stdout.utf8.contains(0x1B), "an escape byte in plain output")
    #expect(top.isRunning)
  }

  /// A shutdown ends the stream with its `end` event: top says why and exits 0; a
  /// connection that just drops (a killed server) is exit 1.
  @Test func whenTheServerStopsTopSaysSoAndExits() async throws {
    let server = try await ServeProcess.start(["--ephemeral", "--admin-password", Self.password])
    let top = try top(["http://127.0.0.1:\(server.http)"])
    defer { top.stop() }
    try await eventually("the first block") { top.stdout.contains("NODES (1)") }
    server.signal(SIGTERM)
    #expect(try await top.waitForExit() == 0)
    #expect(
      top.stderr.contains("switchboard top: the server ended the stream (server shutting down)"),
      "\(top.stderr)")
    let killed = try await ServeProcess.start(["--ephemeral", "--admin-password", Self.password])
    let second = try self.top(["http://127.0.0.1:\(killed.http)"])
    defer { second.stop() }
    try await eventually("the first block") { second.stdout.contains("NODES (1)") }
    killed.signal(SIGKILL)
    #expect(try await second.waitForExit() == 1)
    #expect(second.stderr.contains("switchboard top: the server closed the connection"), "\(second.stderr)")
  }

  @Test func aWrongPasswordIsRefusedThenTheFifthTryIsSlowed() async throws {
    let server = try await ServeProcess.start(["--ephemeral", "--admin-password", Self.password])
    defer { server.signal(SIGTERM) }
    for _ in 1...4 {
      let wrong = try top(["127.0.0.1:\(server.http)"], password: "not-the-password")
      #expect(try await wrong.waitForExit() == 2)
      #expect(wrong.stderr == "switchboard top: refused: wrong password\n", "\(wrong.stderr)")
    }
    // The fourth failure blocks the address for 2 s, less than starting a process may take on
    // a loaded machine; each failure once a block has run out doubles the next. Three more
    // (each tried until the block before it is over) leave a 16 s block for the right
    // password to meet.
    let admin = AdminTestClient(port: server.http)
    for _ in 1...3 {
      try await eventually(timeout: .seconds(30), "the block ran out") {
        try admin.login("not-the-password").status == 401
      }
    }
    #expect(try admin.login(Self.password).status == 429)
    let slowed = try top(["127.0.0.1:\(server.http)"])
    #expect(try await slowed.waitForExit() == 2)
    #expect(
      slowed.stderr.contains("refused: too many failed logins from this address; try again in "),
      "\(slowed.stderr)")
    let wait = slowed.stderr.split(separator: " ").dropLast().last.flatMap { Int($0) }
    #expect(wait.map { (1...16).contains($0) } == true, "\(slowed.stderr)")
  }

  /// Over HTTPS as `switchboard api` does it: verified against `--ca-file`; without it the
  /// test CA is unknown and top cannot connect (exit 1).
  @Test(.enabled(ifAvailable: TestPKI.hasOpenSSL && TLSSupport.isAvailable, "needs openssl and TLS"))
  func overHTTPSWithTheCAFile() async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let server = try await ServeProcess.start(
      [
        "--ephemeral", "--admin-password", Self.password, "--tls-cert", pki.serverCertificate, "--tls-key",
        pki.serverKey,
      ], listeners: [.tcp, .http, .https])
    defer { server.signal(SIGTERM) }
    let secure = try top(["https://localhost:\(server.https)", "--ca-file", pki.caFile])
    defer { secure.stop() }
    try await eventually("a block over HTTPS") { secure.stdout.contains("NODES (1)") }
    let untrusted = try top(["https://localhost:\(server.https)"])
    #expect(try await untrusted.waitForExit() == 1)
    #expect(untrusted.stderr.hasPrefix("switchboard top: cannot connect"), "\(untrusted.stderr)")
  }

  @Test func aServerWithoutTheConsoleGivesTheHint() async throws {
    let server = try await ServeProcess.start(["--ephemeral"])
    defer { server.signal(SIGTERM) }
    let top = try top(["127.0.0.1:\(server.http)"])
    #expect(try await top.waitForExit() == 2)
    #expect(
      top.stderr.contains("the admin console is off on this server (start serve with --admin-password)"),
      "\(top.stderr)")
  }

  @Test func noServerIsExitOneWithTheReasonInWords() async throws {
    let port = try ReservedPort.reserve()
    let top = try top(["127.0.0.1:\(port.port)"])
    #expect(try await top.waitForExit() == 1)
    #expect(
      top.stderr.hasPrefix("switchboard top: cannot connect to 127.0.0.1:\(port.port)"), "\(top.stderr)")
    #expect(!top.stderr.contains("Error("), "\(top.stderr)")
  }

  @Test(arguments: [
    ([String](), "needs the server's URL", true),
    (["a:1", "b:2"], "unexpected argument 'b:2'", true),
    (["a:1", "--room", "no/such room"], "--room: 'no/such room' is not a valid room name", true),
    (["ftp://a:1"], "URL must be http://HOST:PORT, https://HOST:PORT or HOST:PORT, not 'ftp://a:1'", true),
    (["http://a:1", "--ca-file", "x.pem"], "--ca-file and --insecure apply to https:// only", true),
    (["a:1", "--bogus"], "unknown option --bogus", true),
    (["a:1", "--password-file", "/nonexistent/top-password"], "--password-file: cannot read", true),
    // No password anywhere and stdin not a terminal: nothing to ask.
    (["a:1"], "no password: set SWITCHBOARD_ADMIN_PASSWORD or give --password-file", false),
  ])
  func usageErrorsAreOneLineAndExit64(arguments: [String], problem: String, withPassword: Bool) async throws {
    let top = try top(arguments, password: withPassword ? Self.password : nil)
    #expect(try await top.waitForExit() == 64)
    #expect(top.stderr.hasPrefix("switchboard top: \(problem)"), "\(top.stderr)")
    #expect(top.stderr.hasSuffix("\nTry 'switchboard top --help'.\n"), "\(top.stderr)")
  }

  @Test func thePasswordFileIsRead() async throws {
    let server = try await ServeProcess.start(["--ephemeral", "--admin-password", Self.password])
    defer { server.signal(SIGTERM) }
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("top-password-\(getpid())")
    try "\(Self.password)\n".write(to: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: file) }
    let top = try top(["127.0.0.1:\(server.http)", "--password-file", file.path], password: "wrong-one")
    defer { top.stop() }
    try await eventually("a block") { top.stdout.contains("NODES (1)") }
  }

  /// On a terminal (`script` gives one): colours by default, none with NO_COLOR (any value),
  /// the cursor still placed; `q` quits with 0.
  @Test(
    .enabled(ifAvailable: Executables.tool("script") != nil, "script (util-linux) not installed"),
    arguments: [false, true])
  func noColorTurnsColoursOffOnATerminal(noColor: Bool) async throws {
    let server = try await ServeProcess.start(["--ephemeral", "--admin-password", Self.password])
    defer { server.signal(SIGTERM) }
    let command =
      (noColor ? "env NO_COLOR= " : "env -u NO_COLOR ")
      + "SWITCHBOARD_ADMIN_PASSWORD=\(Self.password) \(Executables.switchboard!) top 127.0.0.1:\(server.http)"
    let terminal = try ChildProcess(
      Executables.tool("script")!, ["-qfec", command, "/dev/null"], environment: ["TERM": "xterm"])
    defer { terminal.stop() }
    try await eventually("a frame") { terminal.stdout.contains("NODES (1)") }
    let out = terminal.stdout
    #expect(out.contains("\u{1B}[H"), "no cursor positioning")
    #expect(out.contains("\u{1B}[?1049h"), "not on the alternate screen")
    #expect(out.contains("\u{1B}[1m") == !noColor, "\(out.debugDescription)")
    terminal.write("q")
    #expect(try await terminal.waitForExit() == 0)
    #expect(terminal.stdout.hasSuffix("\u{1B}[?25h\u{1B}[?1049l"), "the screen not restored")
  }
}
