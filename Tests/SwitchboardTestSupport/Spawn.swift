import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// Every child process of the suites starts here, through `posix_spawn`, not Foundation's
// `Process`: swift-corelibs-foundation 6.3's `Process.run()` copies a whole 256-byte
// `d_name` out of each `/proc/self/fd` entry, which reads past glibc's readdir buffer and
// crashed (a SIGSEGV in a `memmove`) when many suites ran at once (fixed upstream,
// swift-corelibs-foundation PR #5472). Here the child gets exactly its three standard
// descriptors, an empty signal mask and default signal handlers.

/// What a child's standard descriptor is connected to.
enum ChildDescriptor {
  /// `/dev/null`.
  case null
  /// A file, created or truncated, for writing.
  case file(String)
  /// A descriptor of this process (a pipe end), duplicated into the child.
  case descriptor(Int32)
}

/// Starts `command` (its first element found on `PATH` unless it holds a slash) with
/// `environment` added to this process's, in `directory`, and returns its PID.
func spawnChild(
  _ command: [String], environment: [String: String] = [:], directory: URL? = nil,
  stdin: ChildDescriptor = .null, stdout: ChildDescriptor = .null, stderr: ChildDescriptor = .null
) throws -> pid_t {
  precondition(!command.isEmpty, "a child needs a command")
  // posix_spawn's objects are structs on Glibc, opaque pointers (set by their init) on Darwin.
  #if canImport(Darwin)
    var actions: posix_spawn_file_actions_t? = nil
    var attributes: posix_spawnattr_t? = nil
  #else
    var actions = posix_spawn_file_actions_t()
    var attributes = posix_spawnattr_t()
  #endif
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  for (target, source) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
    switch source {
    case .null:
      posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
    case .file(let path):
      posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    case .descriptor(let fd): posix_spawn_file_actions_adddup2(&actions, fd, target)
    }
  }
  #if os(Linux)
    closeDescriptorsFrom3(&actions)
    let closeOthers: Int32 = 0
  #else
    // Darwin closes every descriptor the actions do not name.
    let closeOthers = Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
  #endif

  posix_spawnattr_init(&attributes)
  defer { posix_spawnattr_destroy(&attributes) }
  var none = sigset_t()
  sigemptyset(&none)
  var all = sigset_t()
  sigfillset(&all)
  posix_spawnattr_setsigmask(&attributes, &none)
  posix_spawnattr_setsigdefault(&attributes, &all)
  posix_spawnattr_setflags(&attributes, Int16(Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF) | closeOthers))

  var arguments = command
  if let directory {
    // No portable posix_spawn working directory: a shell changes to it and execs the
    // command (same PID).
    arguments = ["/bin/sh", "-c", #"cd "$0" && exec "$@""#, directory.path] + command
  }
  let argv = arguments.map { strdup($0) } + [nil]
  defer { for p in argv { free(p) } }
  // Tests run in the root network namespace, where nothing may multicast: `switchboard
  // serve` refuses to start with this set unless given --no-advertise (namespace scripts
  // unset it for what they run inside their own namespaces).
  let merged = ProcessInfo.processInfo.environment.merging(["SWITCHBOARD_FORBID_ADVERTISE": "1"]) { $1 }
    .merging(environment) { $1 }
  let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
  defer { for p in envp { free(p) } }
  var pid: pid_t = 0
  let rc = spawnLock.withLock { _ in posix_spawnp(&pid, argv[0]!, &actions, &attributes, argv, envp) }
  guard rc == 0 else { throw TestFailure("cannot start \(command[0]): \(String(cString: strerror(rc)))") }
  return pid
}

/// How a child ended.
public enum ChildTermination: Equatable, Sendable {
  /// It exited with this status.
  case exited(Int32)
  /// A signal killed it.
  case signalled(Int32)

  init(waitStatus status: Int32) {
    // WIFSIGNALED / WTERMSIG / WEXITSTATUS are macros Swift does not import.
    let signal = status & 0x7f
    self = signal != 0 ? .signalled(signal) : .exited((status >> 8) & 0xff)
  }
}

/// Reaps `pid` if it has ended (`nil` while it runs); `blocking` waits for it.
func reap(_ pid: pid_t, blocking: Bool = false) -> ChildTermination? {
  var status: Int32 = 0
  while true {
    let r = waitpid(pid, &status, blocking ? 0 : WNOHANG)
    if r == pid { return ChildTermination(waitStatus: status) }
    if r == 0 { return nil }
    if errno == EINTR { continue }
    return .exited(-1)  // ECHILD: reaped elsewhere; the status is lost
  }
}

/// Held while a child is spawned, and while ``ChildProcess`` makes its pipes, so that no
/// pipe is made in the middle of a spawn.
let spawnLock = Mutex<Void>(())

/// Adds "close every descriptor from 3 up" to `actions` where glibc has it (2.34 and
/// later; its declaration needs `_GNU_SOURCE`, so it is looked up at run time). Without
/// it the child still loses every descriptor this process marked close-on-exec.
#if os(Linux)
  private func closeDescriptorsFrom3(_ actions: inout posix_spawn_file_actions_t) {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
    else { return }
    _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
  }
#endif
