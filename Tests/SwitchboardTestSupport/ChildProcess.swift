import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A child process the test talks to (our CLI, `nc`, python and node peers, `openssl
/// s_client`): stdin is a pipe, stdout and stderr are collected (by a thread of its own)
/// for deadline-bounded checks. ``stop()`` kills it by its PID (SIGKILL: a child started
/// from a test thread can inherit a blocked SIGTERM), at the latest on deinit.
public final class ChildProcess: @unchecked Sendable {
  // Safety: `process` and `stdinPipe` are set up in init and then used only through their
  // thread-safe Foundation APIs; the output pipes belong to the reader thread; the
  // collected output is behind a mutex.
  private let process = Process()
  private let stdinPipe: Pipe
  private let output = OutputBox()
  private let name: String

  /// Starts `executable` with `arguments`, `environment` added to this process's, in
  /// `directory` (this process's by default).
  public init(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:], directory: URL? = nil
  ) throws {
    name = ([URL(fileURLWithPath: executable).lastPathComponent] + arguments.prefix(2)).joined(separator: " ")
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if !environment.isEmpty {
      process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    if let directory { process.currentDirectoryURL = directory }
    let process = self.process
    let (stdin, stdout, stderr) = try spawnLock.withLock { _ in
      // Pipes are inheritable: made (and marked close-on-exec) while no other child is
      // being spawned, so none but this one gets a copy that would hold them open.
      let pipes = (Pipe(), Pipe(), Pipe())
      for pipe in [pipes.0, pipes.1, pipes.2] {
        for handle in [pipe.fileHandleForReading, pipe.fileHandleForWriting] {
          _ = fcntl(handle.fileDescriptor, F_SETFD, FD_CLOEXEC)
        }
      }
      process.standardInput = pipes.0
      process.standardOutput = pipes.1
      process.standardError = pipes.2
      try process.run()
      return pipes
    }
    stdinPipe = stdin
    Self.startReader(stdout: stdout, stderr: stderr, into: output)
  }

  /// Starts `command[0]`, found on `PATH`, with the rest as its arguments.
  public convenience init(command: [String], environment: [String: String] = [:], directory: URL? = nil)
    throws
  {
    try self.init("/usr/bin/env", command, environment: environment, directory: directory)
  }

  deinit {
    stop()
    output.value.withLock { $0.abandoned = true }
  }

  /// Everything written to stdout so far, as text.
  public var stdout: String { output.value.withLock { String(decoding: $0.out, as: UTF8.self) } }
  /// Everything written to stderr so far, as text.
  public var stderr: String { output.value.withLock { String(decoding: $0.err, as: UTF8.self) } }
  public var isRunning: Bool { process.isRunning }
  /// The exit status (or the signal that ended it); only meaningful once it has exited.
  public var exitStatus: Int32 { process.terminationStatus }

  /// Writes `text` to its stdin.
  public func write(_ text: String) {
    stdinPipe.fileHandleForWriting.write(Data(text.utf8))
  }

  /// Closes its stdin (end of input).
  public func closeInput() {
    try? stdinPipe.fileHandleForWriting.close()
  }

  /// Sends `sig` to this process only (by its PID).
  public func signal(_ sig: Int32) {
    if process.isRunning { kill(process.processIdentifier, sig) }
  }

  /// Kills the process with SIGKILL (by its PID) and waits (briefly) until it is reaped.
  public func stop() {
    if process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      _ = eventually(timeout: .seconds(5)) { !process.isRunning }
    }
    closeInput()
  }

  private var outputEOF: Bool { output.value.withLock { $0.outEOF && $0.errEOF } }

  private func describe(_ what: String) -> String {
    "\(name): \(what) (stdout: \(stdout.suffix(2000).debugDescription), stderr: \(stderr.suffix(2000).debugDescription))"
  }
}

// MARK: - Waiting for it

extension ChildProcess {
  /// Waits until stdout contains `text`.
  public func waitForOutput(_ text: String, timeout: Duration = .seconds(15)) async throws {
    try await eventually(timeout: timeout, describe("output \(text.debugDescription)")) {
      stdout.contains(text)
    }
  }

  /// Waits until stdout contains `text` (for synchronous tests).
  public func waitForOutput(_ text: String, timeout: Duration = .seconds(15)) throws {
    guard eventually(timeout: timeout, { stdout.contains(text) }) else {
      throw TestFailure(describe("no output \(text.debugDescription) within \(timeout)"))
    }
  }

  /// Waits for the first line of stdout that `parse` accepts and returns what it made of it.
  public func waitForLine<T>(timeout: Duration = .seconds(15), _ parse: (Substring) -> T?) async throws -> T {
    var found: T?
    try await eventually(timeout: timeout, describe("a matching line")) {
      found = stdout.split(separator: "\n").lazy.compactMap(parse).first
      if found == nil && !process.isRunning { throw TestFailure(describe("exited")) }
      return found != nil
    }
    return found!
  }

  /// Waits for the process to exit and returns its status. Also waits (briefly) until its
  /// output pipes reached end of file: the exit can be seen before the last bytes it wrote
  /// were read, and a test that reads `stdout` right after must see them.
  public func waitForExit(timeout: Duration = .seconds(15)) async throws -> Int32 {
    try await eventually(timeout: timeout, describe("exit")) { !process.isRunning }
    // A grandchild that inherited the pipes could hold them open: do not wait forever.
    _ = try? await eventually(timeout: .seconds(3), "output EOF") { outputEOF }
    return process.terminationStatus
  }

  /// ``waitForExit(timeout:)`` for synchronous tests.
  public func waitForExit(timeout: Duration = .seconds(15)) throws -> Int32 {
    guard eventually(timeout: timeout, { !process.isRunning }) else {
      throw TestFailure(describe("still running after \(timeout)"))
    }
    _ = eventually(timeout: .seconds(3)) { outputEOF }
    return process.terminationStatus
  }
}

// MARK: - Collecting its output

extension ChildProcess {
  /// Reads both pipes on a thread of its own until each reaches end of file (or the
  /// process object is gone), so that no output and no end of file is missed: Foundation's
  /// `readabilityHandler` runs on libdispatch, whose Linux sources report readiness
  /// transitions, so end of file right behind the last bytes was not always reported.
  /// The thread owns the pipes until it ends (their descriptors cannot be reused under it).
  private static func startReader(stdout: Pipe, stderr: Pipe, into output: OutputBox) {
    Thread.detachNewThread {
      var fds = [
        pollfd(fd: stdout.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0),
        pollfd(fd: stderr.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0),
      ]
      var buffer = [UInt8](repeating: 0, count: 65536)
      while fds.contains(where: { $0.fd >= 0 }) && !output.value.withLock({ $0.abandoned }) {
        let ready = poll(&fds, 2, 100)
        if ready < 0 && errno != EINTR { break }
        for i in 0..<2 where fds[i].fd >= 0 && fds[i].revents != 0 {
          let n = read(fds[i].fd, &buffer, buffer.count)
          if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
          output.value.withLock { captured in
            if n > 0 {
              if i == 0 { captured.out += buffer[0..<n] } else { captured.err += buffer[0..<n] }
            } else if i == 0 {
              captured.outEOF = true
            } else {
              captured.errEOF = true
            }
          }
          if n <= 0 { fds[i].fd = -1 }
        }
      }
      withExtendedLifetime((stdout, stderr)) {}
    }
  }
}

/// Output collected from the pipes by the reader thread.
private final class OutputBox: Sendable {
  struct Captured {
    var out: [UInt8] = []
    var err: [UInt8] = []
    var outEOF = false
    var errEOF = false
    /// The ``ChildProcess`` is gone: the reader stops.
    var abandoned = false
  }
  let value = Mutex(Captured())
}

// MARK: - Running a tool to completion

/// Runs `command[0]` (found on `PATH`) with the rest as arguments, in `directory`, to
/// completion, and returns its stdout; throws a ``TestFailure`` with its stderr when it
/// fails or outlives `timeout` (then it is killed). Its output goes to files, not pipes:
/// a daemon it starts (`tmux new-session` starts the tmux server) inherits them and would
/// hold a pipe open for ever.
@discardableResult
public func runTool(_ command: [String], in directory: URL? = nil, timeout: Duration = .seconds(30)) throws
  -> String
{
  let base = FileManager.default.temporaryDirectory.appendingPathComponent(
    "switchboard-tool-\(getpid())-\(UInt64.random(in: 0 ... .max))")
  let outURL = base.appendingPathExtension("out")
  let errURL = base.appendingPathExtension("err")
  _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
  _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
  defer {
    try? FileManager.default.removeItem(at: outURL)
    try? FileManager.default.removeItem(at: errURL)
  }
  let outHandle = try FileHandle(forWritingTo: outURL)
  let errHandle = try FileHandle(forWritingTo: errURL)
  defer {
    try? outHandle.close()
    try? errHandle.close()
  }
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = command
  if let directory { process.currentDirectoryURL = directory }
  process.standardInput = FileHandle.nullDevice
  process.standardOutput = outHandle
  process.standardError = errHandle
  try runSerialized(process)
  let finished = eventually(timeout: timeout) { !process.isRunning }
  if !finished {
    kill(process.processIdentifier, SIGKILL)
    _ = eventually(timeout: .seconds(5)) { !process.isRunning }
  }
  let stdout = (try? String(contentsOf: outURL, encoding: .utf8)) ?? ""
  let stderr = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
  guard finished else {
    throw TestFailure("\(command.joined(separator: " ")) did not finish within \(timeout)")
  }
  guard process.terminationReason == .exit && process.terminationStatus == 0 else {
    throw TestFailure("\(command.joined(separator: " ")) failed (\(process.terminationStatus)): \(stderr)")
  }
  return stdout
}

/// Whether `command` runs and exits with 0 (for `.enabled(if:)` checks).
public func commandSucceeds(_ command: [String]) -> Bool {
  (try? runTool(command)) != nil
}

/// One child process at a time: every suite that spawns peers goes through here.
/// Serialising the spawn (a few milliseconds; waiting for children is not serialised) was
/// the first guess at a SIGSEGV in a `memmove` inside `Process.run()`. The real cause is
/// swift-corelibs-foundation 6.3's over-read of `/proc/self/fd` entries (upstream PR
/// #5472), worked around in `scripts/test` with `GLIBC_TUNABLES` (docs/TESTING.md); the
/// lock stays as a harmless single place where every spawn happens.
public func runSerialized(_ process: Process) throws {
  try spawnLock.withLock { _ in try process.run() }
}

private let spawnLock = Mutex<Void>(())
