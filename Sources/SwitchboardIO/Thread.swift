#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A minimal pthread wrapper: the event loops need their own threads and a cheap
/// identity check, and nothing else.
struct Thread {
  private final class Box {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
  }
  private let name: String
  private let body: () -> Void

  init(name: String, _ body: @escaping () -> Void) {
    self.name = name
    self.body = body
  }

  /// Starts the thread, detached.
  func start() {
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    let threadName = name
    #if canImport(Glibc)
      var tid = pthread_t()
    #else
      var tid: pthread_t? = nil
    #endif
    let rc = pthread_create(
      &tid, nil,
      { arg in
        let box = Unmanaged<Box>.fromOpaque(arg!).takeRetainedValue()
        box.body()
        return nil
      }, box)
    precondition(rc == 0, "pthread_create failed: \(rc)")
    #if canImport(Glibc)
      _ = threadName
      pthread_detach(tid)
    #else
      if let tid { pthread_detach(tid) }
    #endif
  }

  /// An identifier of the calling thread (never 0).
  static var currentID: UInt {
    #if canImport(Glibc)
      return UInt(pthread_self())
    #else
      return UInt(bitPattern: pthread_self())
    #endif
  }
}
