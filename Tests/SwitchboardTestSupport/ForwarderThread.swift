import Foundation
import Synchronization

/// The thread a test proxy forwards on (``StallingProxy``, ``DatagramRelay``): started
/// once the proxy is made, asked to stop, waited for.
final class ForwarderThread: Sendable {
  private let stopping = Mutex(false)
  private let finished = DispatchSemaphore(value: 0)

  /// Whether ``stop()`` was called: the loop checks it between polls and returns.
  var isStopping: Bool { stopping.withLock { $0 } }

  /// Runs `loop` on a thread named `name`, until it returns.
  func start(name: String, _ loop: @escaping @Sendable () -> Void) {
    let thread = Thread { [finished] in
      loop()
      finished.signal()
    }
    thread.name = name
    thread.start()
  }

  /// Asks the loop to end and waits until it has. Idempotent.
  func stop() {
    let first = stopping.withLock { s -> Bool in
      defer { s = true }
      return !s
    }
    guard first else { return }
    finished.wait()
  }
}
