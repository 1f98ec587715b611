import CSwitchboardShims

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What a registered file descriptor wants to hear about.
public struct Interest: OptionSet, Sendable, Hashable {
  public let rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }
  /// Readable (or accept-able, or closed by the peer).
  public static let read = Interest(rawValue: 1)
  /// Writable.
  public static let write = Interest(rawValue: 2)
}

/// Readiness reported for one file descriptor.
public struct ReadyEvents: OptionSet, Sendable, Hashable {
  public let rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }
  public static let readable = ReadyEvents(rawValue: 1)
  public static let writable = ReadyEvents(rawValue: 2)
  /// Hang-up or error: the handler should read (to learn the error) and close.
  public static let hangup = ReadyEvents(rawValue: 4)
}

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

/// The readiness notifier under an event loop. Every method except ``wakeup()`` is called
/// on the loop's thread only; both backends give level-triggered semantics.
protocol IOSelector: AnyObject {
  func register(fd: Int32, interest: Interest) throws(IOError)
  func reregister(fd: Int32, interest: Interest) throws(IOError)
  /// Stops watching `fd` and closes it (the Dispatch backend must close only after its
  /// sources are cancelled).
  func deregisterAndClose(fd: Int32)
  /// Blocks until something is ready, a wake-up arrives or `timeoutNanos` passes (`nil`:
  /// no limit), then calls `body` for each ready descriptor.
  func wait(timeoutNanos: UInt64?, _ body: (Int32, ReadyEvents) -> Void) throws(IOError)
  /// Interrupts a `wait` in progress or the next one. Thread-safe.
  func wakeup()
  /// Releases the selector's own descriptors.
  func close()
}

func makeSelector(_ backend: SelectorBackend) throws(IOError) -> IOSelector {
  switch backend {
  case .epoll:
    #if os(Linux)
      return try EpollSelector()
    #else
      throw IOError(call: "epoll_create1", errno: ENOSYS, detail: "(epoll exists only on Linux)")
    #endif
  case .dispatch:
    return DispatchSelector()
  case .ioUring:
    #if os(Linux)
      return try EpollSelector()
    #else
      throw IOError(call: "io_uring_setup", errno: ENOSYS, detail: "(io_uring exists only on Linux)")
    #endif
  }
}
