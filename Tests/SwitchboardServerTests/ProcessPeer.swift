import Foundation
import Synchronization
import SwitchboardTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A child process (our CLI, `nc`) with its output collected for deadline-bounded checks.
/// It is killed by PID when the test ends.
final class ProcessPeer: @unchecked Sendable {
  // Safety: `process` and the pipes are set up in init and only used through their
  // thread-safe Foundation APIs; the collected output is behind a mutex.
  let process = Process()
  private let stdinPipe = Pipe()
  private let stdoutPipe = Pipe()
  private let stderrPipe = Pipe()
  private let output = OutputBox()

  init(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws {
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    if !environment.isEmpty {
      process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    process.standardInput = stdinPipe
    process.standardOutput = stdoutPipe
    process.standardError = stderrPipe
    stdoutPipe.fileHandleForReading.readabilityHandler = { [output] handle in
      let data = handle.availableData
      // Empty at end of file — or after an interrupted read, so the handler stays.
      output.value.withLock {
        $0.out.append(contentsOf: data)
        $0.outEOF = data.isEmpty
      }
    }
    stderrPipe.fileHandleForReading.readabilityHandler = { [output] handle in
      let data = handle.availableData
      // Empty at end of file — or after an interrupted read, so the handler stays.
      output.value.withLock {
        $0.err.append(contentsOf: data)
        $0.errEOF = data.isEmpty
      }
    }
    try runSerialized(process)
  }

  deinit {
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    stdoutPipe.fileHandleForReading.readabilityHandler = nil
    stderrPipe.fileHandleForReading.readabilityHandler = nil
  }

  var stdout: String { output.value.withLock { String(decoding: $0.out, as: UTF8.self) } }
  var stderr: String { output.value.withLock { String(decoding: $0.err, as: UTF8.self) } }

  func write(_ text: String) {
    stdinPipe.fileHandleForWriting.write(Data(text.utf8))
  }

  func closeInput() {
    try? stdinPipe.fileHandleForWriting.close()
  }

  func signal(_ sig: Int32) {
    kill(process.processIdentifier, sig)
  }

  /// Waits until stdout contains `text`.
  func waitForOutput(_ text: String, timeout: Duration = .seconds(10)) async throws {
    try await eventually(timeout: timeout, "output \(text.debugDescription) (stdout: \(stdout.debugDescription), stderr: \(stderr.debugDescription))") {
      stdout.contains(text)
    }
  }

  /// Waits for the process to exit and returns its status. Also waits (briefly) until its
  /// output pipes reached end of file: the exit can be seen before the last bytes it wrote
  /// were read, and a test that reads `stdout` right after must see them.
  func waitForExit(timeout: Duration = .seconds(10)) async throws -> Int32 {
    try await eventually(timeout: timeout, "process exit") { !process.isRunning }
    // A grandchild that inherited the pipes could hold them open: do not wait forever.
    _ = try? await eventually(timeout: .seconds(3), "output EOF") {
      output.value.withLock { $0.outEOF && $0.errEOF }
    }
    return process.terminationStatus
  }
}

/// Ports that were free a moment ago (bound to 0 and released), for the CLI whose port 0
/// means "off".
func freePorts(_ count: Int) throws -> [Int] {
  var fds: [Int32] = []
  defer { fds.forEach { close($0) } }
  var ports: [Int] = []
  for _ in 0..<count {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    fds.append(fd)
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = 0
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &addr) { p in
      p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
        bind(fd, sa, len) == 0 && getsockname(fd, sa, &len) == 0
      }
    }
    guard ok else { throw TestFailure("could not probe a free port") }
    ports.append(Int(UInt16(bigEndian: addr.sin_port)))
  }
  return ports
}

private final class OutputBox: Sendable {
  struct Captured {
    var out: [UInt8] = []
    var err: [UInt8] = []
    var outEOF = false
    var errEOF = false
  }
  let value = Mutex(Captured())
}
