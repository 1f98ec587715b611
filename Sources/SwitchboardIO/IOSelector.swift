#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

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
  /// Interrupts a `wait` in progress or the next one. Thread-safe, and a no-op after
  /// ``close()``: its descriptor number may belong to someone else by then.
  func wakeup()
  /// Releases the selector's own descriptors.
  func close()
}

func makeSelector(_ backend: SelectorBackend) throws(IOError) -> IOSelector {
  if let reason = backend.unavailableReason(
    available: SelectorBackend.available, platform: BuildPlatform.name)
  {
    throw IOError(call: backend == .dispatch ? "dispatch" : "epoll_create1", errno: ENOSYS, detail: reason)
  }
  switch backend {
  case .dispatch:
    return DispatchSelector()
  case .epoll, .ioUring:
    #if os(Linux)
      return try EpollSelector()
    #else
      throw IOError(call: "epoll_create1", errno: ENOSYS, detail: "(epoll exists only on Linux)")
    #endif
  }
}
