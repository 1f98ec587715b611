import Dispatch
import Foundation
import Synchronization
import SwitchboardIO

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// Helpers shared by the test suites that drive event loops from a test thread (I/O, TLS):
// waiting with deadlines instead of fixed sleeps, hopping onto a loop, and comparing
// large buffers cheaply.

/// A failure of the test harness itself (a deadline passed, a tool or socket call failed).
public struct TestFailure: Error, CustomStringConvertible {
  public let description: String
  public init(_ description: String) { self.description = description }
}

/// Polls `condition` every millisecond until it holds (`true`) or `timeout` passes
/// (`false`). The way these tests wait for events: never a fixed sleep.
public func eventually(timeout: Duration = .seconds(10), _ condition: () throws -> Bool) rethrows -> Bool {
  let clock = ContinuousClock()
  let deadline = clock.now.advanced(by: timeout)
  while true {
    if try condition() { return true }
    if clock.now >= deadline { return false }
    usleep(1000)
  }
}

/// A value behind a mutex, readable and writable from any thread.
public final class Locked<Value: Sendable>: Sendable {
  private let mutex: Mutex<Value>
  public init(_ value: Value) { mutex = Mutex(value) }
  public func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R {
    mutex.withLock { value in body(&value) }
  }
  public var value: Value { withLock { $0 } }
}

/// A one-shot event another thread signals and the test waits for with a deadline.
public final class Signal: Sendable {
  private let semaphore = DispatchSemaphore(value: 0)
  public init() {}
  public func fire() { semaphore.signal() }
  /// `true` when the signal fired within `timeout`.
  public func wait(timeout: Duration = .seconds(10)) -> Bool {
    semaphore.wait(timeout: .now() + .nanoseconds(Int(timeout.nanoseconds))) == .success
  }
}

/// Runs `body` on `loop` and returns its result, waiting at most `timeout`.
@discardableResult
public func onLoop<T: Sendable>(
  _ loop: EventLoop, timeout: Duration = .seconds(10), _ body: @escaping @Sendable () throws -> T
) throws -> T {
  let result = Locked<Result<T, any Error>?>(nil)
  let done = Signal()
  loop.execute {
    let outcome = Result { try body() }
    result.withLock { $0 = outcome }
    done.fire()
  }
  guard done.wait(timeout: timeout) else {
    throw TestFailure("event loop \(loop.index) did not run a task within \(timeout)")
  }
  return try result.value!.get()
}

/// Position-dependent pseudo-random bytes: reordered, lost or duplicated chunks show.
public func pattern(count: Int, seed: UInt64 = 0) -> [UInt8] {
  var bytes = [UInt8](repeating: 0, count: count)
  var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
  for i in 0..<count {
    state ^= state << 13
    state ^= state >> 7
    state ^= state << 17
    bytes[i] = UInt8(truncatingIfNeeded: state >> 32)
  }
  return bytes
}

/// Where two byte sequences first differ (`nil` when equal). Tests compare large buffers
/// through this: `#expect(a == b)` on megabytes makes a failure compute a diff for minutes.
public func firstDifference(_ a: [UInt8], _ b: [UInt8]) -> Int? {
  if a == b { return nil }
  let n = min(a.count, b.count)
  for i in 0..<n where a[i] != b[i] { return i }
  return n
}

/// One child process at a time: every suite that spawns peers goes through here.
/// Serialising the spawn (a few milliseconds; waiting for children is not serialised) was
/// the first guess at a SIGSEGV in a `memmove` inside `Process.run()`. The real cause is
/// swift-corelibs-foundation 6.3's over-read of `/proc/self/fd` entries (upstream PR
/// #5472), worked around in `scripts/test` with `GLIBC_TUNABLES` (docs/TESTING.md); the
/// lock stays as a harmless single place where every spawn happens.
public func runSerialized(_ process: Process) throws {
  try spawnLock.withLock { _ in try process.run() }
}

private let spawnLock = Mutex<Void>(())

/// Connects the blocking socket `fd` to `address`; 0 or the errno. A blocking `connect`
/// returns `EINTR` when a signal arrives while it waits (a child process of another suite
/// exiting, say) although the connection goes on in the kernel: this waits for it (up to
/// `timeout`) and returns its outcome instead.
public func blockingConnect(_ fd: Int32, to address: SocketAddress, timeout: Duration = .seconds(5)) -> Int32 {
  #if canImport(Glibc)
    let rc = address.withSockAddr { sa, len in Glibc.connect(fd, sa, len) }
  #else
    let rc = address.withSockAddr { sa, len in Darwin.connect(fd, sa, len) }
  #endif
  if rc == 0 { return 0 }
  let err = errno
  guard err == EINTR else { return err }
  var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
  let waitMs = Int32(clamping: timeout.components.seconds * 1000)
  var polled: Int32
  repeat { polled = poll(&pfd, 1, waitMs) } while polled < 0 && errno == EINTR
  guard polled == 1 else { return ETIMEDOUT }
  var soError: Int32 = 0
  var len = socklen_t(MemoryLayout<Int32>.size)
  getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &len)
  return soError
}
