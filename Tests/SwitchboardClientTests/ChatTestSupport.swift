import Foundation
import SwitchboardClient
import SwitchboardChat
import SwitchboardIO
import SwitchboardServer
import SwitchboardStore
import SwitchboardTLS
import Synchronization
import SwitchboardTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A ``ChatClient`` running in a background task, its events recorded for
/// deadline-bounded checks.
final class ChatProbe: Sendable {
  /// How long a probe waits for an event: generous, because it is only a deadline (a
  /// passing test never waits it out) and a heavily loaded machine can take seconds to
  /// connect an in-process client.
  static let deadline: Duration = .seconds(30)

  let client: ChatClient
  private let log = ChatEventLog()
  private let task = Mutex<Task<Void, Never>?>(nil)

  init(
    _ url: String, name: String, room: String? = nil, configuration: ChatClient.Configuration = .forTesting,
    resumingFrom: ChatResumePoint? = nil
  ) throws {
    client = try ChatClient(url: url, name: name, room: room, configuration: configuration, resumingFrom: resumingFrom)
    let client = self.client
    let log = self.log
    let running = Task {
      _ = try? await client.run { session in
        for await event in session.events { log.events.withLock { $0.append(event) } }
      }
    }
    task.withLock { $0 = running }
  }

  var events: [ChatClient.Event] { log.events.withLock { $0 } }

  /// Messages received so far.
  var messages: [ChatClient.Message] {
    log.events.withLock { events in
      events.flatMap { event -> [ChatClient.Message] in
        switch event {
        case .message(let m): [m]
        case .history(let ms, _, _): ms
        default: []
        }
      }
    }
  }

  /// Waits for an event matching `predicate`, counting from event index `from`.
  @discardableResult
  func waitFor(
    _ what: String, from: Int = 0, timeout: Duration = ChatProbe.deadline, _ predicate: (ChatClient.Event) -> Bool
  ) async throws -> ChatClient.Event {
    var hit: ChatClient.Event?
    try await eventually(timeout: timeout, "\(client.name): \(what); events: \(events.suffix(12))") {
      hit = log.events.withLock { $0.dropFirst(from).first(where: predicate) }
      return hit != nil
    }
    return hit!
  }

  func waitConnected(count: Int = 1, timeout: Duration = ChatProbe.deadline) async throws {
    try await eventually(timeout: timeout, "\(client.name): connected \(count)x; \(events.suffix(8))") {
      connectedCount >= count
    }
  }

  /// WebSocket: also waits for the history that makes it ready to send.
  func waitReady(count: Int = 1) async throws {
    try await waitConnected(count: count)
    if client.endpoint.scheme == .ws {
      try await eventually(timeout: ChatProbe.deadline, "\(client.name): history \(count)x; \(events.suffix(8))") {
        log.events.withLock { $0.filter { if case .history = $0 { true } else { false } }.count } >= count
      }
    }
  }

  var connectedCount: Int { log.events.withLock { $0.filter { if case .connected = $0 { true } else { false } }.count } }

  func waitForMessage(_ text: String, timeout: Duration = ChatProbe.deadline) async throws -> ChatClient.Message {
    let event = try await waitFor("message '\(text)'", timeout: timeout) {
      if case .message(let m) = $0, m.text == text { return true }
      if case .history(let ms, _, _) = $0, ms.contains(where: { $0.text == text }) { return true }
      return false
    }
    switch event {
    case .message(let m): return m
    case .history(let ms, _, _): return ms.first { $0.text == text }!
    default: fatalError()
    }
  }

  func stop() async {
    client.close()
    let task = self.task.withLock { $0 }
    await task?.value
  }

  /// A probe its test let go of without ``stop()`` (one that threw before reaching it)
  /// stops too: its client would otherwise reconnect to its port for the rest of the run,
  /// and whichever test's server is given that port next would get its connections and
  /// the messages it still had to send.
  deinit { client.close() }
}

extension ChatClient.Configuration {
  /// Quick retries, no heartbeat noise and no path monitor unless a test asks. (Apple's
  /// platforms default to the system's `NWPathMonitor`, whose reports of the CI machine's
  /// interfaces coming and going would reconnect a test's clients at moments it did not
  /// choose; Linux has none. The monitor itself is checked in ChatPathTrackerTests.)
  static var forTesting: ChatClient.Configuration {
    var configuration = ChatClient.Configuration(
      connectTimeout: .seconds(5),
      reconnect: ReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(500)),
      heartbeat: .disabled)
    configuration.pathMonitor = nil
    return configuration
  }
}

/// Whether the platform's default transport connects `tls://` and `wss://`: the POSIX one
/// through OpenSSL where it is linked (TLSSupport), Network.framework's always.
let defaultTransportDoesTLS = TLSSupport.isAvailable || !(ChatTransports.system is POSIXChatTransport)

/// Events behind a lock, shareable between tasks.
final class ChatEventLog: Sendable {
  let events = Mutex<[ChatClient.Event]>([])
}

/// An in-process server on loopback ports.
func startServer(_ configure: (inout ServerConfiguration) -> Void = { _ in }) throws -> ChatServer {
  var config = ServerConfiguration.loopbackForTesting()
  configure(&config)
  let server = try ChatServer(configuration: config)
  try server.start()
  return server
}

/// An in-process server that ``restart()`` brings back behind the same addresses, the way
/// a client sees a server restart: its TCP, HTTP and UDP ports are a ``StallingProxy``, a
/// ``StallingProxy`` and a ``DatagramRelay`` (each on a port the kernel chose) in front of
/// the server, which binds new kernel-chosen ports each time and the proxies are pointed
/// at. Nothing probes for a free port, and no restart waits for the old ports to be free.
final class RestartableServer: Sendable {
  private let server: Mutex<ChatServer>
  private let tcp: StallingProxy
  private let http: StallingProxy
  private let udp: DatagramRelay

  /// Starts the server (``startServer(_:)``, `configure` applied) and its proxies.
  init(_ configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
    let first = try startServer(configure)
    server = Mutex(first)
    tcp = try StallingProxy(upstreamPort: first.tcpAddress?.port ?? 0)
    http = try StallingProxy(upstreamPort: first.httpAddress?.port ?? 0)
    udp = try DatagramRelay(upstreamPort: first.udpAddress?.port ?? 0)
  }

  /// The server running now.
  var current: ChatServer { server.withLock { $0 } }

  /// The ports clients use; they stay the same across restarts.
  var tcpPort: Int { tcp.port }
  var httpPort: Int { http.port }
  var udpPort: Int { udp.port }

  /// Shuts the server down and starts another with the same broker factory (a SQLite
  /// store reopens on the same directory); new connections reach the new one.
  func restart() throws {
    try server.withLock { old in
      old.shutdown()
      let broker = old.configuration.broker
      let new = try startServer { $0.broker = broker }
      tcp.redirect(to: new.tcpAddress?.port ?? 0)
      http.redirect(to: new.httpAddress?.port ?? 0)
      udp.redirect(to: new.udpAddress?.port ?? 0)
      old = new
    }
  }

  /// Shuts the server down and closes the proxies.
  func shutdown() {
    current.shutdown()
    tcp.close()
    http.close()
    udp.close()
  }
}

func wsURL(_ server: RestartableServer, path: String = "/") -> String { "ws://127.0.0.1:\(server.httpPort)\(path)" }
func tcpURL(_ server: RestartableServer) -> String { "tcp://127.0.0.1:\(server.tcpPort)" }
func udpURL(_ server: RestartableServer) -> String { "udp://127.0.0.1:\(server.udpPort)" }

/// A local broker keeping history (`historyLimit` messages per room) in SQLite in `directory`.
func sqliteBroker(directory: String) -> @Sendable (ServerConfiguration) throws -> any RoomBroker {
  { c in
    let store = try SQLiteHistoryStore(directory: directory, configuration: .init(retentionCount: c.historyLimit))
    return LocalRoomBroker(store: store)
  }
}

func wsURL(_ server: ChatServer, path: String = "/") -> String { "ws://127.0.0.1:\(server.httpAddress!.port)\(path)" }
func tcpURL(_ server: ChatServer) -> String { "tcp://127.0.0.1:\(server.tcpAddress!.port)" }
func udpURL(_ server: ChatServer) -> String { "udp://127.0.0.1:\(server.udpAddress!.port)" }

/// A fresh temporary directory.
func temporaryDirectory() throws -> String {
  var template = Array("/tmp/switchboard-chat-XXXXXX".utf8CString)
  guard let p = mkdtemp(&template) else { throw TestFailure("mkdtemp failed") }
  return String(cString: p)
}
