import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A listener of `switchboard serve`, by the name of its port flag (`--tcp-port` …) and of
/// its entry on the `listening` line.
public enum ServeListener: String, CaseIterable, Sendable, Hashable {
  case tcp, udp, http, tls, https
}

/// `switchboard serve` as a child process, every listener asked for on a port the kernel
/// chose (`--tcp-port any` …), the others off. The ports are read back from the
/// `listening` line `serve` prints once all of them are bound (docs/OPERATIONS.md,
/// "Ports"), so nothing is probed, guessed or retried.
///
/// ```swift
/// let server = try await ServeProcess.start(["--ephemeral"])
/// defer { server.stop() }
/// let nc = try ChildProcess("nc", ["127.0.0.1", "\(server.tcp)"])
/// ```
public final class ServeProcess: Sendable {
  /// The process, for its output, signals and exit.
  public let process: ChildProcess
  /// What each listener bound, as reported.
  public let ports: [ServeListener: Int]

  private init(process: ChildProcess, ports: [ServeListener: Int]) {
    self.process = process
    self.ports = ports
  }

  /// The port `listener` bound; 0 (which nothing listens on) for one that is off.
  public func port(_ listener: ServeListener) -> Int { ports[listener] ?? 0 }
  public var tcp: Int { port(.tcp) }
  public var udp: Int { port(.udp) }
  public var http: Int { port(.http) }
  public var tls: Int { port(.tls) }
  public var https: Int { port(.https) }

  /// Starts `switchboard serve --host 127.0.0.1 --no-advertise` with `listeners` on
  /// kernel-chosen ports and the others off, then `arguments` (which may override any of
  /// that: a later flag wins), and waits until it reports what it bound. A `wrapper` runs
  /// the command (`["/bin/sh", "-c", #"ulimit -n 100 && exec "$0" "$@""#]`), which must
  /// exec it.
  /// - Throws: ``TestFailure`` when no binary is built, or when `serve` exits or reports
  ///   no `listening` line with every asked-for listener within `timeout` (its output is
  ///   in the message).
  public static func start(
    _ arguments: [String] = [], listeners: Set<ServeListener> = [.tcp, .udp, .http],
    environment: [String: String] = [:], directory: URL? = nil, wrapper: [String] = [],
    timeout: Duration = .seconds(30)
  ) async throws -> ServeProcess {
    let process = try launch(arguments, listeners, environment, directory, wrapper)
    let ports = try await process.waitForLine(timeout: timeout, Self.parse)
    return try ServeProcess(process: process, checked: ports, listeners: listeners)
  }

  /// ``start(_:listeners:environment:directory:timeout:)`` for synchronous tests.
  public static func start(
    _ arguments: [String] = [], listeners: Set<ServeListener> = [.tcp, .udp, .http],
    environment: [String: String] = [:], directory: URL? = nil, wrapper: [String] = [],
    timeout: Duration = .seconds(30)
  ) throws -> ServeProcess {
    let process = try launch(arguments, listeners, environment, directory, wrapper)
    let ports = try process.waitForLine(timeout: timeout, Self.parse)
    return try ServeProcess(process: process, checked: ports, listeners: listeners)
  }

  private convenience init(process: ChildProcess, checked ports: [ServeListener: Int], listeners: Set<ServeListener>)
    throws
  {
    let missing = listeners.filter { ports[$0] == nil }
    guard missing.isEmpty else {
      process.stop()
      throw TestFailure("serve did not report \(missing.map(\.rawValue).sorted()): \(process.stdout)")
    }
    self.init(process: process, ports: ports)
  }

  private static func launch(
    _ arguments: [String], _ listeners: Set<ServeListener>, _ environment: [String: String], _ directory: URL?,
    _ wrapper: [String]
  ) throws -> ChildProcess {
    guard let binary = Executables.switchboard else { throw TestFailure("the switchboard binary is not built") }
    let ports = ServeListener.allCases.flatMap { ["--\($0.rawValue)-port", listeners.contains($0) ? "any" : "0"] }
    let command = wrapper + [binary, "serve", "--host", "127.0.0.1", "--no-advertise"] + ports + arguments
    return try ChildProcess(command: command, environment: environment, directory: directory)
  }

  /// The ports of a `listening tcp=127.0.0.1:41234 udp=…` line; `nil` for any other line.
  public static func parse(_ line: Substring) -> [ServeListener: Int]? {
    let words = line.split(separator: " ")
    guard words.first == "listening" else { return nil }
    var ports: [ServeListener: Int] = [:]
    for word in words.dropFirst() {
      guard let equals = word.firstIndex(of: "="), let colon = word.lastIndex(of: ":"),
        let listener = ServeListener(rawValue: String(word[..<equals])),
        let port = Int(word[word.index(after: colon)...])
      else { return nil }
      ports[listener] = port
    }
    return ports
  }

  // The process, for tests that hold a ServeProcess where they held a ChildProcess.

  /// Its process id.
  public var pid: pid_t { process.pid }
  /// Everything it wrote to stdout so far.
  public var stdout: String { process.stdout }
  /// Everything it wrote to stderr so far (its log).
  public var stderr: String { process.stderr }
  /// Whether it is still running.
  public var isRunning: Bool { process.isRunning }
  /// Sends `sig` (SIGTERM: a clean shutdown).
  public func signal(_ sig: Int32) { process.signal(sig) }
  /// Kills it (SIGKILL) and reaps it.
  public func stop() { process.stop() }
  /// Waits for it to exit and returns its status.
  public func waitForExit(timeout: Duration = .seconds(15)) async throws -> Int32 {
    try await process.waitForExit(timeout: timeout)
  }
  /// Waits until stdout contains `text`.
  public func waitForOutput(_ text: String, timeout: Duration = .seconds(15)) async throws {
    try await process.waitForOutput(text, timeout: timeout)
  }
}
