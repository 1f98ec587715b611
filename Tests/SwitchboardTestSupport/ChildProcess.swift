import Foundation
import SwitchboardIO
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A child process the test talks to (our CLI, `nc`, python and node peers, `openssl
/// s_client`): stdin is a pipe, stdout and stderr are collected (by a thread of its own)
/// for deadline-bounded checks. ``stop()`` kills it by its PID with SIGKILL, at the
/// latest on deinit.
public final class ChildProcess: Sendable {
  /// The child's process id.
  public let pid: pid_t
  private let name: String
  private let stdinFD: Int32
  private let state = Mutex(State())
  private let output = OutputBox()

  private struct State {
    var termination: ChildTermination?
    var stdinOpen = true
  }

  /// Starts `executable` with `arguments`, `environment` added to this process's, in
  /// `directory` (this process's by default).
  public init(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:], directory: URL? = nil
  ) throws {
    _ = Self.ignoreSIGPIPE
    name = ([URL(fileURLWithPath: executable).lastPathComponent] + arguments.prefix(2)).joined(separator: " ")
    // Close-on-exec, so that no other child inherits them (this one gets copies as its
    // standard descriptors); made while no child is being spawned.
    let pipes = try spawnLock.withLock { _ in try [Self.pipe(), Self.pipe(), Self.pipe()] }
    let (stdin, stdout, stderr) = (pipes[0], pipes[1], pipes[2])
    do {
      pid = try spawnChild(
        [executable] + arguments, environment: environment, directory: directory,
        stdin: .descriptor(stdin.read), stdout: .descriptor(stdout.write), stderr: .descriptor(stderr.write))
    } catch {
      for pipe in pipes {
        close(pipe.read)
        close(pipe.write)
      }
      throw error
    }
    close(stdin.read)
    close(stdout.write)
    close(stderr.write)
    stdinFD = stdin.write
    Self.startReader(stdout: stdout.read, stderr: stderr.read, into: output)
  }

  /// Starts `command[0]`, found on `PATH`, with the rest as its arguments.
  public convenience init(command: [String], environment: [String: String] = [:], directory: URL? = nil)
    throws
  {
    try self.init(command[0], Array(command.dropFirst()), environment: environment, directory: directory)
  }

  deinit {
    stop()
    output.value.withLock { $0.abandoned = true }
  }

  /// Everything written to stdout so far, as text.
  public var stdout: String { output.value.withLock { String(decoding: $0.out, as: UTF8.self) } }
  /// Everything written to stderr so far, as text.
  public var stderr: String { output.value.withLock { String(decoding: $0.err, as: UTF8.self) } }

  /// How it ended; `nil` while it runs.
  public var termination: ChildTermination? {
    state.withLock { state in
      if state.termination == nil { state.termination = reap(pid) }
      return state.termination
    }
  }

  public var isRunning: Bool { termination == nil }

  /// The exit status, or the number of the signal that ended it (as Foundation's
  /// `terminationStatus`); only meaningful once it has ended.
  public var exitStatus: Int32 {
    switch termination {
    case .exited(let status): status
    case .signalled(let signal): signal
    case nil: -1
    }
  }

  /// Writes `text` to its stdin (dropped once the child closed it).
  public func write(_ text: String) {
    state.withLock { state in
      guard state.stdinOpen else { return }
      var bytes = Array(text.utf8)[...]
      while !bytes.isEmpty {
        let n = bytes.withUnsafeBytes { Posix.write(stdinFD, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return }
        bytes = bytes.dropFirst(n)
      }
    }
  }

  /// Closes its stdin (end of input).
  public func closeInput() {
    state.withLock { state in
      if state.stdinOpen { close(stdinFD) }
      state.stdinOpen = false
    }
  }

  /// Sends `sig` to this process (by its PID, which stays its own until it is reaped).
  public func signal(_ sig: Int32) {
    state.withLock { state in
      if state.termination == nil { state.termination = reap(pid) }
      if state.termination == nil { kill(pid, sig) }
    }
  }

  /// Kills the process with SIGKILL and waits (briefly) until it is reaped.
  public func stop() {
    signal(SIGKILL)
    _ = eventually(timeout: .seconds(5)) { !isRunning }
    closeInput()
  }

  private var outputEOF: Bool { output.value.withLock { $0.outEOF && $0.errEOF } }
  /// Exited, and both pipes read to the end: no more output can come.
  private var hasFinishedWriting: Bool { !isRunning && outputEOF }

  private func describe(_ what: String) -> String {
    "\(name): \(what) (stdout: \(stdout.suffix(2000).debugDescription), stderr: \(stderr.suffix(2000).debugDescription))"
  }

  private static func pipe() throws -> (read: Int32, write: Int32) {
    var fds: [Int32] = [-1, -1]
    guard Posix.pipe(&fds) == 0 else { throw TestFailure("pipe: errno \(errno)") }
    for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    return (fds[0], fds[1])
  }

  /// A write to a child that has closed its stdin fails (EPIPE) instead of killing the
  /// test process.
  private static let ignoreSIGPIPE: Void = Posix.ignoreBrokenPipes()
}

// MARK: - Waiting for it

extension ChildProcess {
  /// Waits until stdout contains `text`.
  /// Fails at once when the process has exited and its output is read to the end without
  /// `text`: waiting longer cannot help.
  public func waitForOutput(_ text: String, timeout: Duration = .seconds(15)) async throws {
    try await eventually(timeout: timeout, describe("output \(text.debugDescription)")) {
      let finished = hasFinishedWriting  // read first: then stdout below is complete
      if stdout.contains(text) { return true }
      if finished { throw TestFailure(describe("exited without output \(text.debugDescription)")) }
      return false
    }
  }

  /// Waits until stdout contains `text` (for synchronous tests).
  public func waitForOutput(_ text: String, timeout: Duration = .seconds(15)) throws {
    // `hasFinishedWriting` is read first: when it holds, the stdout read after it is complete.
    guard eventually(timeout: timeout, { hasFinishedWriting || stdout.contains(text) }), stdout.contains(text) else {
      throw TestFailure(describe("no output \(text.debugDescription) within \(timeout)"))
    }
  }

  /// Waits for the first line of stdout that `parse` accepts and returns what it made of it.
  public func waitForLine<T>(timeout: Duration = .seconds(15), _ parse: (Substring) -> T?) async throws -> T {
    var found: T?
    try await eventually(timeout: timeout, describe("a matching line")) {
      found = try firstLine(parse)
      return found != nil
    }
    guard let found else { throw TestFailure(describe("no matching line")) }
    return found
  }

  /// ``waitForLine(timeout:_:)`` for synchronous tests.
  public func waitForLine<T>(timeout: Duration = .seconds(15), _ parse: (Substring) -> T?) throws -> T {
    var found: T?
    _ = try eventually(timeout: timeout) {
      found = try firstLine(parse)
      return found != nil
    }
    guard let found else { throw TestFailure(describe("no matching line within \(timeout)")) }
    return found
  }

  /// The first whole line of stdout so far that `parse` accepts; throws once the process
  /// has exited and its output is read to the end without one.
  private func firstLine<T>(_ parse: (Substring) -> T?) throws -> T? {
    // Whole lines only: a line still being written ("PORT 12" of "PORT 1234") must not match.
    let finished = hasFinishedWriting  // read first: then `text` below is all there is
    let text = stdout
    let complete =
      finished || text.hasSuffix("\n") ? Substring(text) : text[..<(text.lastIndex(of: "\n") ?? text.startIndex)]
    let found = complete.split(separator: "\n").lazy.compactMap(parse).first
    if found == nil && finished { throw TestFailure(describe("exited")) }
    return found
  }

  /// Waits for the process to exit and returns its status. Also waits (briefly) until its
  /// output pipes reached end of file: the exit can be seen before the last bytes it wrote
  /// were read, and a test that reads `stdout` right after must see them.
  public func waitForExit(timeout: Duration = .seconds(15)) async throws -> Int32 {
    try await eventually(timeout: timeout, describe("exit")) { !isRunning }
    // A grandchild that inherited the pipes could hold them open: do not wait forever.
    _ = try? await eventually(timeout: .seconds(3), "output EOF") { outputEOF }
    return exitStatus
  }

  /// ``waitForExit(timeout:)`` for synchronous tests.
  public func waitForExit(timeout: Duration = .seconds(15)) throws -> Int32 {
    guard eventually(timeout: timeout, { !isRunning }) else {
      throw TestFailure(describe("still running after \(timeout)"))
    }
    _ = eventually(timeout: .seconds(3)) { outputEOF }
    return exitStatus
  }
}

// MARK: - Collecting its output

extension ChildProcess {
  /// Reads both pipes on a thread of its own until each reaches end of file (or the
  /// ``ChildProcess`` is gone), so that no output and no end of file is missed. The thread
  /// owns the two descriptors and closes them when it ends.
  private static func startReader(stdout: Int32, stderr: Int32, into output: OutputBox) {
    Thread.detachNewThread {
      var fds = [
        pollfd(fd: stdout, events: Int16(POLLIN), revents: 0),
        pollfd(fd: stderr, events: Int16(POLLIN), revents: 0),
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
          if n <= 0 {
            close(fds[i].fd)
            fds[i].fd = -1
          }
        }
      }
      for fd in fds where fd.fd >= 0 { close(fd.fd) }
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
