import Foundation
import SwitchboardIO
import SwitchboardRedis
import SwitchboardTLS
import SwitchboardTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A real `redis-server` (Debian's) for one test, on a loopback ``ReservedPort`` (which
/// nothing else can bind while this lives, so it starts once, without retries), with no
/// persistence.
final class RedisServer: Sendable {
  /// How to start it.
  struct Options: Sendable {
    /// `requirepass` (the `default` user's password).
    var password: String?
    /// ACL users as `user` directives (`["alice", "on", ">secret", "~*", "&*", "+@all"]`).
    var users: [[String]] = []
    /// TLS on the port (and no plain port), with these files.
    var tls: (certificate: String, key: String, ca: String)?
    /// Commands renamed away (`rename-command NAME ""`), e.g. `HELLO` to look like Redis 5.
    var disabledCommands: [String] = []
    /// Keep the data across a restart: an append-only file synced on every write, in a
    /// directory of this server's own (without it nothing is saved, and a restart starts
    /// empty).
    var persistent = false
    /// Start as a replica of the server on this loopback port (`--replicaof`).
    var replicaOf: Int?
    /// More `redis-server` options (`["--repl-diskless-sync-delay", "0"]`).
    var arguments: [String] = []
    /// Whether the server keeps files (an append-only file, a replica's snapshot) in a
    /// directory of its own, removed with it.
    var hasOwnDirectory: Bool { persistent || replicaOf != nil }
  }

  /// Whether `redis-server` is installed (scripts/install-test-peers.sh installs it).
  static let isInstalled = commandSucceeds(["redis-server", "--version"])
  /// Whether this redis-server was built with TLS (Debian's is).
  static let supportsTLS: Bool = {
    guard isInstalled, let binary = Executables.tool("redis-server"), let output = try? runTool(["ldd", binary])
    else { return false }
    return output.contains("libssl")
  }()
  /// Whether the TLS suite can run: a TLS redis-server and the `openssl` CLI for `TestPKI`.
  static let canRunTLS = TLSSupport.isAvailable && supportsTLS && TestPKI.hasOpenSSL

  let port: Int
  let options: Options
  /// Keeps ``port`` this server's until it is gone, across a ``restart()``.
  private let reservation: ReservedPort
  /// Where a persistent server keeps its append-only file (removed with the server).
  private let directory: String
  private let process: Locked<ChildProcess?>

  /// Starts a server and waits until it accepts connections.
  init(_ options: Options = Options()) throws {
    self.options = options
    reservation = try ReservedPort.reserve()
    port = reservation.port
    // A replica writes the snapshot its master sends into its directory, and every server
    // loads a `dump.rdb` it finds there at start: a replica gets a directory of its own too.
    if options.hasOwnDirectory {
      directory = FileManager.default.temporaryDirectory.appendingPathComponent("sb-redis-\(UUID().uuidString)").path
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    } else {
      directory = FileManager.default.temporaryDirectory.path
    }
    do {
      process = Locked(try Self.start(options, port: port, directory: directory))
    } catch {
      if options.hasOwnDirectory { try? FileManager.default.removeItem(atPath: directory) }
      throw error
    }
  }

  deinit {
    process.withLock { $0?.stop() }
    if options.hasOwnDirectory { try? FileManager.default.removeItem(atPath: directory) }
  }

  /// The server's process id.
  var pid: pid_t? { process.withLock { $0?.pid } }

  /// A `redis://` (or `rediss://`) URL for it.
  func url(user: String? = nil, password: String? = nil, database: Int = 0) -> RedisURL {
    RedisURL(
      host: "127.0.0.1", port: port, user: user, password: password, database: database,
      tls: options.tls != nil)
  }

  /// Kills the server (SIGKILL).
  func kill() {
    process.withLock { $0?.stop() }
  }

  /// Kills it (if running) and starts it again on the same port once the old process is
  /// reaped: by then its listening socket is closed and the port is free (redis-server
  /// binds with `SO_REUSEADDR`, so its old connections' `TIME_WAIT` does not hold it).
  func restart() throws {
    let old = process.withLock { $0 }
    old?.signal(SIGKILL)
    if let old { _ = try old.waitForExit() }
    let child = try Self.start(options, port: port, directory: directory)
    process.withLock { $0 = child }
  }

  /// `redis-cli -p <port> arguments…`'s output.
  @discardableResult
  func cli(_ arguments: String...) throws -> String {
    try runTool(["redis-cli", "-h", "127.0.0.1", "-p", String(port)] + arguments)
  }

  /// Sends `sig` (SIGSTOP, SIGCONT) to the server.
  func signal(_ sig: Int32) {
    process.withLock { $0?.signal(sig) }
  }

  private static func start(_ options: Options, port: Int, directory: String) throws -> ChildProcess {
    var arguments = ["--bind", "127.0.0.1", "--save", "", "--daemonize", "no", "--dir", directory]
    arguments += options.persistent ? ["--appendonly", "yes", "--appendfsync", "always"] : ["--appendonly", "no"]
    if let tls = options.tls {
      arguments += ["--port", "0", "--tls-port", String(port)]
      arguments += [
        "--tls-cert-file", tls.certificate, "--tls-key-file", tls.key, "--tls-ca-cert-file", tls.ca,
      ]
      arguments += ["--tls-auth-clients", "no"]
    } else {
      arguments += ["--port", String(port)]
    }
    if let password = options.password { arguments += ["--requirepass", password] }
    for user in options.users { arguments += ["--user"] + user }
    for command in options.disabledCommands { arguments += ["--rename-command", command, ""] }
    if let master = options.replicaOf { arguments += ["--replicaof", "127.0.0.1", String(master)] }
    arguments += options.arguments
    let child = try ChildProcess(command: ["redis-server"] + arguments)
    let ready = eventually(timeout: .seconds(15)) {
      child.stdout.contains("Ready to accept connections") || !child.isRunning
    }
    guard ready, child.isRunning else {
      child.stop()
      throw TestFailure("redis-server on port \(port) did not start: \(child.stdout.suffix(1500))")
    }
    return child
  }
}

/// An event loop for one test, shut down when the test is done with it.
func withLoop<T>(_ body: (EventLoop) async throws -> T) async throws -> T {
  let loop = try EventLoop()
  defer { loop.shutdownGracefully() }
  return try await body(loop)
}

extension RedisConfiguration {
  /// A configuration for tests: quick back-off, given timeouts. The connect timeout is
  /// generous: a broker's first connect runs in a task on the cooperative pool, which the
  /// first seconds of a full run keep busy (it took over 14 s there); a refused connect
  /// still fails at once.
  static func test(
    _ url: RedisURL, protocolVersion: ProtocolVersion = .resp3, commandTimeout: Duration = .seconds(10)
  ) -> RedisConfiguration {
    RedisConfiguration(
      url: url, protocolVersion: protocolVersion, connectTimeout: .seconds(30),
      commandTimeout: commandTimeout,
      backoff: RedisBackoff(initial: .milliseconds(20), maximum: .milliseconds(200)))
  }
}

/// Retries `body` until it succeeds (every 20 ms), failing with its last error after `timeout`.
func untilSuccess<T: Sendable>(
  timeout: Duration = .seconds(15), _ body: () async throws -> T
) async throws -> T {
  let deadline = ContinuousClock.now.advanced(by: timeout)
  while true {
    do {
      return try await body()
    } catch {
      guard ContinuousClock.now < deadline else {
        throw TestFailure("still failing after \(timeout): \(error)")
      }
      try await Task.sleep(for: .milliseconds(20))
    }
  }
}
