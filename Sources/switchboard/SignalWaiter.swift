import SwitchboardIO

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Signals taken by a thread of their own with `sigwait` instead of a handler: ``block(_:)``
/// masks them in the calling thread — call it before the command starts any thread, so
/// every thread inherits the mask and none takes the signal by itself — and
/// ``start(name:signals:_:)`` starts the thread that waits for them and calls the handler
/// there, not in signal context. `StopSignals` (SIGINT, SIGTERM) and the TLS reload
/// (SIGHUP) both use it.
enum SignalWaiter {
  /// Blocks `signals` in the calling thread and so in every thread it starts later.
  static func block(_ signals: [Int32]) {
    var set = makeSet(signals)
    pthread_sigmask(SIG_BLOCK, &set, nil)
  }

  /// Starts the thread `name` that calls `handler` for each of `signals` from now on
  /// (blocked in the calling thread too, in case ``block(_:)`` was not called).
  /// - Throws: ``IOError`` when the thread cannot start; `signals` stay blocked then.
  static func start(name: String, signals: [Int32], _ handler: @escaping @Sendable (Int32) -> Void) throws(IOError) {
    block(signals)
    try SystemThread.start(name: name) {
      var set = makeSet(signals)
      while true {
        var sig: Int32 = 0
        guard sigwait(&set, &sig) == 0 else { continue }
        handler(sig)
      }
    }
  }

  /// Unblocks `signals` in the calling thread.
  static func unblock(_ signals: [Int32]) {
    var set = makeSet(signals)
    pthread_sigmask(SIG_UNBLOCK, &set, nil)
  }

  private static func makeSet(_ signals: [Int32]) -> sigset_t {
    var set = sigset_t()
    sigemptyset(&set)
    for sig in signals { sigaddset(&set, sig) }
    return set
  }
}
