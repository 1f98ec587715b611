import Foundation
import Testing
import SwitchboardTestSupport

/// Programs nobody here wrote — python `websockets`, node `ws`, headless Chromium —
/// driven against the real binary by the scripts in Tests/peers.
@Suite(.onTestThreads, .enabled(ifAvailable: Executables.switchboard != nil, "build the switchboard executable first"))
struct PeerScriptTests {
  static let peersDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("peers").path
  static let nodeWS = (ProcessInfo.processInfo.environment["SWITCHBOARD_PEERS_CACHE"] ?? "/var/cache/switchboard-peers")
    + "/node-ws/usr/share/nodejs"

  /// The first python3 on `PATH` that has `websockets` (a pyenv shim may come before the
  /// system's, without it).
  static let python: String? = Executables.tools("python3").first {
    commandSucceeds([$0, "-c", "import websockets"])
  }
  static let chromium = Executables.tool("chromium")
  static let node = Executables.tool("node")
  static let hasNodeWS = FileManager.default.fileExists(atPath: nodeWS + "/ws/package.json")

  private func withBinaryServer(_ body: (_ tcp: Int, _ http: Int) async throws -> Void) async throws {
    let server = try await ServeProcess.start(["--ephemeral", "--max-message-size", "16777216"])
    defer { server.signal(SIGTERM) }
    try await body(server.tcp, server.http)
  }

  private func run(_ tool: String, _ args: [String], env: [String: String] = [:], timeout: Duration) async throws {
    let peer = try ChildProcess(tool, args, environment: env)
    let status = try await peer.waitForExit(timeout: timeout)
    #expect(status == 0, "\(args.first ?? tool) failed: \(peer.stdout.suffix(800)) \(peer.stderr.suffix(800))")
  }

  @Test(.enabled(ifAvailable: python != nil, "needs python3 with websockets"))
  func pythonWebsocketsClientSpeaksTheJSONProtocol() async throws {
    try await withBinaryServer { _, http in
      try await run(
        Self.python!, ["\(Self.peersDirectory)/ws_chat_client.py", "ws://127.0.0.1:\(http)/", "--max-size", "16777216"],
        timeout: .seconds(180))
    }
  }

  /// Typing indicators (docs/PROTOCOLS.md, "Typing") with python `websockets` members: come
  /// and go, only to the member that asked, never in history, expiring after 5 s.
  @Test(.enabled(ifAvailable: python != nil, "needs python3 with websockets"))
  func pythonWebsocketsMembersSeeTypingComeAndGo() async throws {
    try await withBinaryServer { _, http in
      try await run(
        Self.python!, ["\(Self.peersDirectory)/ws_typing_client.py", "ws://127.0.0.1:\(http)/"],
        timeout: .seconds(60))
    }
  }

  @Test(.enabled(ifAvailable: node != nil && hasNodeWS, "needs node and the unpacked node-ws"))
  func nodeWsClientChatsAndEchoes() async throws {
    try await withBinaryServer { _, http in
      try await run(
        Self.node!, ["\(Self.peersDirectory)/node_ws_client.js", "ws://127.0.0.1:\(http)", "60"],
        env: ["NODE_PATH": Self.nodeWS], timeout: .seconds(90))
    }
  }

  @Test(.enabled(ifAvailable: python != nil && chromium != nil, "needs chromium and python3 with websockets"))
  func chromiumUsesTheWebPageWithAnNcUser() async throws {
    try await withBinaryServer { tcp, http in
      try await run(
        Self.python!, ["\(Self.peersDirectory)/browser_chat.py", "\(http)", "\(tcp)", "--timeout", "150"],
        timeout: .seconds(210))
    }
  }

  /// The page's command language (/help, /me both ways, //text, /who, /rooms, /join, /nick,
  /// an unknown command) against a line client; screenshots at 1280×800 and 390×844.
  @Test(.enabled(ifAvailable: python != nil && chromium != nil, "needs chromium and python3 with websockets"))
  func chromiumRunsThePagesCommandLanguage() async throws {
    try await withBinaryServer { tcp, http in
      let shots = FileManager.default.temporaryDirectory.appendingPathComponent("browser_commands-\(getpid())").path
      try await run(
        Self.python!,
        ["\(Self.peersDirectory)/browser_commands.py", "\(http)", "\(tcp)", "--timeout", "150", "--screenshots", shots],
        timeout: .seconds(210))
    }
  }

  /// Typing indicators on the page against python members that asked for them: the page's
  /// typing reaches them (start and stop), theirs shows as `… is typing…` / `… and … are
  /// typing…` and goes on a stop or a message; screenshots at 1280×800 and 390×844.
  @Test(.enabled(ifAvailable: python != nil && chromium != nil, "needs chromium and python3 with websockets"))
  func chromiumShowsWhoIsTyping() async throws {
    try await withBinaryServer { tcp, http in
      let shots = FileManager.default.temporaryDirectory.appendingPathComponent("browser_typing-\(getpid())").path
      try await run(
        Self.python!,
        ["\(Self.peersDirectory)/browser_typing.py", "\(http)", "\(tcp)", "--timeout", "150", "--screenshots", shots],
        timeout: .seconds(210))
    }
  }
}
