import SwitchboardChat

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Starts the store's one writer thread (a detached pthread: the store waits for it
/// through its own semaphores, not `pthread_join`, so closing from the writer thread
/// itself cannot deadlock).
enum WriterThread {
  private final class Box {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
  }

  static func start(_ body: @escaping @Sendable () -> Void) throws(StoreError) {
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    #if canImport(Glibc)
      var thread = pthread_t()
    #else
      var thread: pthread_t? = nil
    #endif
    let rc = pthread_create(
      &thread, nil,
      { argument in
        let box = Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue()
        box.body()
        return nil
      }, box)
    guard rc == 0 else {
      Unmanaged<Box>.fromOpaque(box).release()
      throw StoreError("cannot start the history writer thread: \(FileSystem.describe(rc))")
    }
    #if canImport(Glibc)
      pthread_detach(thread)
    #else
      if let thread { pthread_detach(thread) }
    #endif
  }

  /// The calling thread's identity (never 0).
  static var currentID: UInt {
    #if canImport(Glibc)
      UInt(pthread_self())
    #else
      UInt(bitPattern: pthread_self())
    #endif
  }
}
