import Dispatch

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// SIGINT and SIGTERM as events for the commands that run until they are stopped (`serve`,
/// `advertise`, `browse`): the default action (ending the process at once) is replaced by
/// `handler`, called on a queue of its own — not in signal context — so the command can
/// shut down in order (goodbyes, flushed history).
enum StopSignals {
  /// Installs `handler` for SIGINT and SIGTERM. Keep the returned sources alive for as
  /// long as the handler should run — with `withExtendedLifetime`: a release build frees a
  /// value after its last use, not at the end of its scope (`_ = sources` does not hold it).
  static func install(_ handler: @escaping @Sendable (Int32) -> Void) -> [DispatchSourceSignal] {
    let queue = DispatchQueue(label: "switchboard.signals")
    return [SIGINT, SIGTERM].map { sig in
      signal(sig, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
      source.setEventHandler { handler(sig) }
      source.resume()
      return source
    }
  }
}
