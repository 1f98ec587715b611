#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// SIGINT and SIGTERM as events for the commands that run until they are stopped (`serve`,
/// `advertise`, `browse`, `peer`), so they can shut down in order (goodbyes, flushed
/// history) instead of ending at once.
///
/// `main` calls ``block()`` before the command starts any thread; ``install(_:)`` takes the
/// signals on a thread of their own (``SignalWaiter``). (Dispatch signal sources were used
/// before: on Linux libdispatch reads signals from a signalfd, and a SIGTERM the kernel
/// handed to a thread that had not blocked it — an event loop started before the source —
/// was discarded as ignored, so now and then `serve` under load never saw its SIGTERM.)
enum StopSignals {
  /// The commands that call ``install(_:)``: `main` calls ``block()`` before running them.
  static let commands: Set<String> = ["serve", "advertise", "browse", "peer"]

  private static let signals = [SIGINT, SIGTERM]

  /// Blocks SIGINT and SIGTERM in the calling thread and every thread it starts later.
  static func block() { SignalWaiter.block(signals) }

  /// Calls `handler` (on the thread `sb-signals`) for every SIGINT and SIGTERM from now on.
  /// Needs ``block()`` first; without it a signal may still end the process at once.
  static func install(_ handler: @escaping @Sendable (Int32) -> Void) {
    do {
      try SignalWaiter.start(name: "sb-signals", signals: signals, handler)
    } catch {
      Output.error("switchboard: cannot start the signal thread (\(error)); SIGINT/SIGTERM end the process at once")
      SignalWaiter.unblock(signals)
    }
  }
}
