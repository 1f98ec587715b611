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
  /// DispatchSource read/write sources: portable, the backend macOS and iOS run (the only one
  /// there); also run on Linux in tests.
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
  /// ``dispatch`` on macOS, iOS and everywhere else.
  public static var platformDefault: SelectorBackend { defaultBackend }

  /// The backends this machine can run (tests iterate over these).
  public static var available: [SelectorBackend] {
    available(onLinux: BuildPlatform.isLinux, ioUringAvailable: isIOUringAvailable)
  }

  /// Whether an io_uring can be created here (probed once per process).
  public static var isIOUringAvailable: Bool { ioUringProbe }

  /// The backends a platform can run: epoll and Dispatch on Linux, with io_uring where the
  /// kernel allows it; Dispatch alone elsewhere (macOS, iOS).
  package static func available(onLinux: Bool, ioUringAvailable: Bool) -> [SelectorBackend] {
    guard onLinux else { return [.dispatch] }
    return ioUringAvailable ? [.epoll, .dispatch, .ioUring] : [.epoll, .dispatch]
  }

  /// The default among `available`: `requested` (the value of `SWITCHBOARD_BACKEND`) when it
  /// names one of them, else io_uring, epoll, then Dispatch, the first available.
  package static func choose(requested: String?, available: [SelectorBackend]) -> SelectorBackend {
    if let requested, let chosen = SelectorBackend(rawValue: requested), available.contains(chosen) {
      return chosen
    }
    return [.ioUring, .epoll, .dispatch].first(where: available.contains) ?? .dispatch
  }

  /// Why `self` cannot run where only `available` can, for an error or a usage message
  /// ("epoll is not available on macOS (available: dispatch)"); `nil` when it can.
  package func unavailableReason(available: [SelectorBackend], platform: String) -> String? {
    if available.contains(self) { return nil }
    let what =
      switch self {
      case .epoll: "epoll exists only on Linux"
      case .ioUring: "io_uring needs Linux 5.6 or later with io_uring allowed"
      case .dispatch: "Dispatch is missing"
      }
    return "the \(rawValue) backend is not available on \(platform) (\(what); available: "
      + available.map(\.rawValue).joined(separator: ", ") + ")"
  }
}

private let defaultBackend: SelectorBackend = SelectorBackend.choose(
  requested: getenv("SWITCHBOARD_BACKEND").map { String(cString: $0) }, available: SelectorBackend.available)

/// Creating and destroying a small ring is the only reliable test: the system call can be
/// missing, disabled by sysctl or refused by a seccomp filter.
private let ioUringProbe: Bool = {
  guard let ring = sb_send_ring_create(8, 8) else { return false }
  sb_send_ring_destroy(ring)
  return true
}()
