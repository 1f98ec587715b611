import Foundation
import SwitchboardClient
import SwitchboardServer
import SwitchboardTLS
import SwitchboardTestSupport
import SwitchboardWebSocket
import Testing

/// ``ChatRefusal`` and ``ChatClientError/refused``, written against the public API only: which
/// answers are final (classified without I/O), and a client that meets one stops with the
/// server's reason instead of reconnecting, having posted nothing.
@Suite(.onTestThreads)
struct ChatRefusalTests {
  // MARK: Classification, no I/O

  @Test func aRoomOrNameTheServerWouldRefuseIsRefusedBeforeConnecting() {
    let room = ChatRefusal.check(room: "dev room", name: "ada")
    #expect(room?.kind == .room)
    #expect(room?.reason == #"invalid room name "dev room" (1-64 letters, digits, - _ .)"#)
    #expect(ChatRefusal.check(room: String(repeating: "a", count: 65), name: "ada")?.kind == .room)
    #expect(ChatRefusal.check(room: "", name: "ada")?.kind == .room)
    let name = ChatRefusal.check(room: nil, name: "* server")
    #expect(name?.kind == .name && name?.reason.hasPrefix("a name may not start with *") == true)
    #expect(ChatRefusal.check(room: "dev", name: "server")?.kind == .name)
    // What the server accepts passes: an empty name (the server names the member), marks.
    #expect(ChatRefusal.check(room: "dev-2_x.y", name: "") == nil)
    #expect(ChatRefusal.check(room: "café", name: "ada (2)") == nil)
    #expect(ChatRefusal.check(room: nil, name: "ada") == nil)
  }

  @Test(arguments: [
    (400, "invalid room name (1-64 letters, digits, - _ .)", ChatRefusal.Kind?.some(.room)),
    (401, "", .authentication), (403, "origin https://evil.example is not allowed", .request),
    (404, "not found", .request), (421, "misdirected", .request),
    // Transient: asked again, these may pass.
    (408, "", nil), (429, "", nil), (500, "", nil), (502, "", nil), (503, "too many rooms", nil),
  ])
  func anUpgradeStatusIsFinalOnlyWhenRetryingCannotHelp(status: Int, body: String, kind: ChatRefusal.Kind?) {
    let refusal = ChatRefusal.upgrade(status: status, body: body)
    #expect(refusal?.kind == kind)
    if let refusal {
      #expect(refusal.status == status)
      #expect(refusal.reason == (body.isEmpty ? "the server answered \(status)" : body))
    }
  }

  @Test func aPolicyCloseIsFinalForWhoTheClientIsNotForHowItBehaved() {
    #expect(
      ChatRefusal.close(code: .policyViolation, reason: "authentication required")?.kind == .authentication)
    #expect(ChatRefusal.close(code: .policyViolation, reason: "token expired")?.kind == .authentication)
    #expect(ChatRefusal.close(code: .policyViolation, reason: "not allowed in room ops")?.kind == .room)
    for transient in ["slow consumer", "idle too long", "rate limit", "byte rate limit"] {
      #expect(ChatRefusal.close(code: .policyViolation, reason: transient) == nil, "\(transient)")
    }
    #expect(ChatRefusal.close(code: .goingAway, reason: "server shutting down") == nil)
    #expect(ChatRefusal.close(code: .abnormalClosure, reason: "connection lost") == nil)
  }

  /// The server's auth proxy: the backend's refusal (4003) is final, with its reason; no answer
  /// from the backend (1013, try again later) is a close to reconnect after.
  @Test func anAuthProxyRefusalIsFinalAndItsFailureIsNot() {
    let refused = ChatRefusal.close(code: WebSocketCloseCode(4003), reason: "banned")
    #expect(refused?.reason == "banned" && refused?.kind == .request)
    #expect(ChatRefusal.close(code: .tryAgainLater, reason: "authorization unavailable") == nil)
  }

  @Test func aLineIsFinalWhenItRefusesAuthenticationTheRoomOrIsHTTP() {
    #expect(ChatRefusal.line("! authentication required", room: "lobby")?.kind == .authentication)
    #expect(ChatRefusal.line("! token signature invalid", room: "lobby")?.reason == "token signature invalid")
    #expect(
      ChatRefusal.line(
        "! authentication required: the UDP port takes no tokens (use tcp://, tls:// or ws:// with one)",
        room: "lobby")?.kind == .authentication)
    #expect(ChatRefusal.line("! not allowed in room ops", room: "ops")?.kind == .room)
    let http = ChatRefusal.line("HTTP/1.1 400 Bad Request", room: "lobby")
    #expect(http?.kind == .request && http?.reason.contains("try ws://") == true)
    // Errors a connection survives, and another room's refusal (a later /join), are not final.
    #expect(ChatRefusal.line("! not allowed in room ops", room: "lobby") == nil)
    #expect(ChatRefusal.line("! slow down (limit 5 messages a second)", room: "lobby") == nil)
    #expect(ChatRefusal.line("! name is fixed by your token", room: "lobby") == nil)
    #expect(ChatRefusal.line("* authentication required", room: "lobby") == nil)
    #expect(ChatRefusal.line("mallory: ! authentication required", room: "lobby") == nil)
  }

  @Test func theErrorIsItsOwnKindWithTheReasonAsItsDescription() {
    let error = ChatClientError.refused(ChatRefusal(kind: .authentication, reason: "token expired"))
    #expect(error == .refused)
    #expect(error != .connectFailed)
    #expect(error.description == "token expired")
    #expect(error.refusal?.kind == .authentication)
    #expect(ChatClientError.connectFailed("x").refusal == nil)
  }

  // MARK: A real server

  /// Runs a client until its event stream ends (it stopped) or the deadline; its events.
  private func runToEnd(
    _ client: ChatClient, timeout: Duration = .seconds(30), log: ChatEventLog = ChatEventLog()
  ) async throws -> [ChatClient.Event] {
    let ended = Locked(false)
    let task = Task {
      _ = try? await client.run { session in
        for await event in session.events { log.events.withLock { $0.append(event) } }
      }
      ended.withLock { $0 = true }
    }
    defer { task.cancel() }
    try await eventually(timeout: timeout, "the client's events ended; so far: \(log.events.withLock { $0 })")
    {
      ended.value
    }
    return log.events.withLock { $0 }
  }

  private func refusal(in events: [ChatClient.Event]) -> ChatClientError? {
    guard case .error(let error)? = events.last, error == .refused else { return nil }
    return error
  }

  @Test(arguments: ["ws", "tcp"])
  func aBadRoomStopsTheClientWithoutConnectingAndPostsNothing(scheme: String) async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let url = scheme == "ws" ? wsURL(server) : tcpURL(server)
    let client = try ChatClient(url: url, name: "ada", room: "dev room", configuration: .forTesting)
    let sent = Task { try await client.send("to the wrong room") }
    let events = try await runToEnd(client)
    let error = try #require(refusal(in: events), "\(events)")
    #expect(error.refusal?.kind == .room)
    #expect(error.description.contains("invalid room name"))
    #expect(!events.contains { if case .connected = $0 { true } else { false } })
    #expect(!events.contains { if case .reconnecting = $0 { true } else { false } })
    await #expect(throws: ChatClientError.refused) { try await sent.value }
    // Nothing reached the lobby (or anywhere).
    let watcher = try ChatProbe(wsURL(server), name: "watcher")
    try await watcher.waitReady()
    #expect(!watcher.messages.contains { $0.text == "to the wrong room" })
    await watcher.stop()
  }

  @Test func theServerAPIsDisconnectIsFinalOnEveryDialect() {
    let close = ChatRefusal.close(
      code: WebSocketCloseCode(4001), reason: "disconnected by the server: account closed")
    #expect(close?.kind == .disconnected)
    #expect(close?.reason == "disconnected by the server: account closed")
    let line = ChatRefusal.line("* disconnected by the server: account closed", room: "lobby")
    #expect(line?.kind == .disconnected)
    #expect(line?.reason == "disconnected by the server: account closed")
    #expect(ChatRefusal.line("* bob has left", room: "lobby") == nil)
  }

  /// `POST /api/disconnect` (the hub's disconnect under it) stops a library client for
  /// good: its last event is the refusal, and it does not come back by itself.
  @Test(arguments: ["ws", "tcp"])
  func aClientDisconnectedByTheServerDoesNotReconnect(scheme: String) async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let url = scheme == "ws" ? wsURL(server) : tcpURL(server)
    let client = try ChatClient(url: url, name: "ada", configuration: .forTesting)
    let log = ChatEventLog()
    // A connected client: the hub lists it and the client has said so (a close racing the
    // client's own connect is another case).
    let remover = Task {
      try await eventually("ada joined and connected") {
        server.hub.who(room: "lobby").contains("ada")
          && log.events.withLock { $0.contains { if case .connected = $0 { true } else { false } } }
      }
      #expect(server.hub.disconnect(name: "ada", room: nil, reason: "account closed") == 1)
    }
    let events = try await runToEnd(client, timeout: .seconds(90), log: log)
    try await remover.value
    let error = try #require(refusal(in: events), "\(events)")
    #expect(error.refusal?.kind == .disconnected)
    #expect(error.description == "disconnected by the server: account closed")
    #expect(!events.contains { if case .reconnecting = $0 { true } else { false } })
    #expect(server.hub.who(room: "lobby").isEmpty)
  }

  @MainActor @Test func theViewModelShowsTheRefusalAsItsState() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let model = ChatViewModel(url: wsURL(server), name: "ada", room: "dev room", configuration: .forTesting)
    model.start()
    try await eventually("the model disconnected with the reason") {
      model.connectionState
        == .disconnected(reason: #"invalid room name "dev room" (1-64 letters, digits, - _ .)"#)
    }
    model.stop()
  }

  @Test func aRefusedUpgradeCarriesTheServersBody() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    // Straight to the server, past the client's own check: the server's words.
    do {
      _ = try await WebSocketClient.connect(to: wsURL(server, path: "/rooms/dev%20room"))
      Issue.record("the upgrade to a bad room was accepted")
    } catch {
      #expect(error == .handshakeRejected)
      #expect(error.status == 400)
      #expect(error.body.hasPrefix("invalid room name"), "\(error.body)")
    }
    // A ChatClient at a path the server does not serve: final, with the status and body.
    let client = try ChatClient(url: wsURL(server, path: "/nowhere"), name: "ada", configuration: .forTesting)
    let events = try await runToEnd(client)
    let error = try #require(refusal(in: events), "\(events)")
    #expect(error.refusal?.status == 404)
    #expect(error.refusal?.kind == .request)
    #expect(!error.description.contains("WebSocketClientError"))
  }

  @Test(.enabled(ifAvailable: TLSSupport.isAvailable, "needs OpenSSL"), arguments: ["wss", "tls"])
  func tlsAtAPlaintextPortSaysToUseThePlainScheme(scheme: String) async throws {
    let server = try startServer()
    defer { server.shutdown() }
    var configuration = ChatClient.Configuration.forTesting
    configuration.tls = TLSConfiguration(verify: false)
    // The HTTP port answers a ClientHello in plaintext (a 400), so the handshake fails at once.
    let probe = try ChatProbe(
      "\(scheme)://127.0.0.1:\(server.httpAddress!.port)/", name: "ada", configuration: configuration)
    let event = try await probe.waitFor("a failed connect") { if case .error = $0 { true } else { false } }
    guard case .error(let error) = event else { return }
    #expect(error == .connectFailed)
    #expect(
      error.description.hasSuffix("this port does not speak TLS: try ws:// (or tcp://) instead"), "\(error)")
    await probe.stop()
  }

  @Test func aRefusedConnectIsTransientAndRetriedWithPlainWords() async throws {
    let port = try RefusingPort()
    let probe = try ChatProbe("tcp://127.0.0.1:\(port.port)", name: "ada")
    try await probe.waitFor("a second attempt") {
      if case .reconnecting(let attempt, _) = $0 { attempt >= 2 } else { false }
    }
    #expect(probe.client.refusal == nil)
    let errors = probe.events.compactMap { if case .error(let e) = $0 { e } else { nil } }
    #expect(errors.first == .connectFailed)
    #expect(errors.first?.description == "cannot connect to 127.0.0.1:\(port.port): connection refused")
    await probe.stop()
  }
}
