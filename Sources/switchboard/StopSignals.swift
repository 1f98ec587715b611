import SwitchboardIO

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// SIGINT and SIGTERM as events for the commands that run until they are stopped (`serve`,
/// `advertise`, `browse`, `peer`), so they can shut down in order (goodbyes, flushed
/// history) instead of ending at once.
///
/// How: ``block()`` masks both signals in the main thread before the command starts any
/// thread, so every thread inherits the mask and no thread can take the signal by itself;
/// ``install(_:)`` starts one thread (`sb-signals`) that takes them with `sigwait` and calls
/// the handler there — not in signal context. (Dispatch signal sources were used before:
/// on Linux libdispatch reads signals from a signalfd, and a SIGTERM the kernel handed to a
/// thread that had not blocked it — an event loop started before the source — was
/// discarded as ignored, so now and then `serve` under load never saw its SIGTERM.)
enum StopSignals {
  /// The commands that call ``install(_:)``: `main` calls ``block()`` before running them.
  static let commands: Set<String> = ["serve", "advertise", "browse", "peer"]

  /// Blocks SIGINT and SIGTERM in the calling thread and so in every thread it starts
  /// later. Call it first thing, before any thread exists.
  static func block() {
    var set = signals
    pthread_sigmask(SIG_BLOCK, &set, nil)
  }

  /// Calls `handler` (on a thread of its own) for every SIGINT and SIGTERM from now on.
  /// Needs ``block()`` first; without it a signal may still end the process at once.
  static func install(_ handler: @escaping @Sendable (Int32) -> Void) {
    block()  // this thread at least; threads started earlier keep their own mask
    do {
      try SystemThread.start(name: "sb-signals") {
        var set = signals
        while true {
          var sig: Int32 = 0
          guard sigwait(&set, &sig) == 0 else { continue }
          handler(sig)
        }
      }
    } catch {
      Output.error("switchboard: cannot start the signal thread (\(error)); SIGINT/SIGTERM end the process at once")
      var set = signals
      pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }
  }

  private static var signals: sigset_t {
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, SIGINT)
    sigaddset(&set, SIGTERM)
    return set
  }
}
