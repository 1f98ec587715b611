import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Runs `command[0]` (found on `PATH`) with the rest as arguments, in `directory`, to
/// completion, and returns its stdout; throws a ``TestFailure`` with its stderr when it
/// fails or outlives `timeout` (then it is killed by its PID). Output goes to files, not
/// pipes: a daemon it starts (`tmux new-session` starts the tmux server) inherits them,
/// and a pipe it held would never reach end of file.
@discardableResult
public func runTool(_ command: [String], in directory: URL? = nil, timeout: Duration = .seconds(30)) throws
  -> String
{
  let base = FileManager.default.temporaryDirectory.appendingPathComponent(
    "switchboard-tool-\(getpid())-\(UInt64.random(in: 0 ... .max))"
  ).path
  let outPath = base + ".out"
  let errPath = base + ".err"
  defer {
    unlink(outPath)
    unlink(errPath)
  }
  let pid = try spawnChild(command, directory: directory, stdout: .file(outPath), stderr: .file(errPath))
  var termination: ChildTermination?
  let finished = eventually(timeout: timeout) {
    termination = reap(pid)
    return termination != nil
  }
  if !finished {
    kill(pid, SIGKILL)
    _ = reap(pid, blocking: true)
  }
  let line = command.joined(separator: " ")
  guard let termination else { throw TestFailure("\(line) did not finish within \(timeout)") }
  guard termination == .exited(0) else {
    let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
    throw TestFailure("\(line) failed (\(termination)): \(stderr)")
  }
  return (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
}

/// Whether `command` runs and exits with 0 (for `.enabled(ifAvailable:)` checks).
public func commandSucceeds(_ command: [String]) -> Bool {
  (try? runTool(command)) != nil
}
