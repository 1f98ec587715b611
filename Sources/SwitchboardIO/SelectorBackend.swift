import CSwitchboardShims

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Which readiness mechanism an ``EventLoop`` uses, and how it sends.
public enum SelectorBackend: String, Sendable, CaseIterable {
  /// Linux epoll with an eventfd for wake-ups; each connection's output leaves with its
  /// own `send`/`sendmsg`.
  case epoll
  /// DispatchSource read/write sources: portable to Darwin, also run on Linux in tests.
  case dispatch
  /// epoll for readiness, and io_uring for output: the sends of one loop iteration (a
  /// fan-out to every member of a room, say) go to the kernel in one `io_uring_enter`
  /// instead of one system call each. Linux 5.6 or later with io_uring allowed
  /// (`/proc/sys/kernel/io_uring_disabled`, container seccomp profiles); reads, accepts
  /// and readiness are the same as ``epoll``'s.
  case ioUring = "io_uring"

  /// The default backend: the environment variable `SWITCHBOARD_BACKEND` (`epoll`,
  /// `io_uring` or `dispatch`) when set to one this machine can run, else the best for the
  /// platform: ``ioUring`` on Linux where the kernel allows it, else ``epoll``;
  /// ``dispatch`` elsewhere.
  public static var platformDefault: SelectorBackend { defaultBackend }

  /// The backends this machine can run (tests iterate over these).
  public static var available: [SelectorBackend] {
    #if os(Linux)
      return isIOUringAvailable ? [.epoll, .dispatch, .ioUring] : [.epoll, .dispatch]
    #else
      return [.dispatch]
    #endif
  }

  /// Whether an io_uring can be created here (probed once per process).
  public static var isIOUringAvailable: Bool { ioUringProbe }
}

private let defaultBackend: SelectorBackend = {
  if let name = getenv("SWITCHBOARD_BACKEND").map({ String(cString: $0) }),
    let chosen = SelectorBackend(rawValue: name), SelectorBackend.available.contains(chosen)
  {
    return chosen
  }
  #if os(Linux)
    return SelectorBackend.isIOUringAvailable ? .ioUring : .epoll
  #else
    return .dispatch
  #endif
}()

/// Creating and destroying a small ring is the only reliable test: the system call can be
/// missing, disabled by sysctl or refused by a seccomp filter.
private let ioUringProbe: Bool = {
  guard let ring = sb_send_ring_create(8, 8) else { return false }
  sb_send_ring_destroy(ring)
  return true
}()
