import CSwitchboardShims

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A minimal pthread wrapper, shared by the event loops and the history store's writer:
/// a named, detached thread and a cheap identity check, nothing else. (Not `Thread`, so
/// that it never clashes with Foundation's in a module that imports both.)
///
/// Detached, because nobody joins: the loops and the writer report their end through
/// semaphores of their own, and the store may be closed from its writer thread, where a
/// join would deadlock.
package enum SystemThread {
  /// The longest name the kernel keeps, in bytes (Linux: 16 with the NUL).
  package static let maximumNameLength = 15

  private final class Start {
    let name: String
    let body: @Sendable () -> Void
    init(name: String, body: @escaping @Sendable () -> Void) {
      self.name = name
      self.body = body
    }
  }

  /// Runs `body` on a new detached thread called `name`, cut to ``maximumNameLength``
  /// bytes (at a character boundary) — so choose names that fit, such as `sb-loop-0`. The
  /// thread names itself before `body` runs (Darwin can only name the calling thread).
  /// - Throws: ``IOError`` for `pthread_create` when the system cannot start a thread.
  package static func start(name: String, _ body: @escaping @Sendable () -> Void) throws(IOError) {
    let start = Unmanaged.passRetained(Start(name: truncated(name), body: body)).toOpaque()
    #if canImport(Glibc)
      var thread = pthread_t()
    #else
      var thread: pthread_t? = nil
    #endif
    let rc = pthread_create(
      &thread, nil,
      { argument in
        // Glibc passes the argument as optional, Darwin not: the cast makes both optional.
        let start = Unmanaged<Start>.fromOpaque((argument as UnsafeMutableRawPointer?)!).takeRetainedValue()
        _ = sb_thread_set_name(start.name)  // a name is for people reading `top -H`; not fatal
        start.body()
        return nil
      }, start)
    guard rc == 0 else {
      Unmanaged<Start>.fromOpaque(start).release()
      throw IOError(call: "pthread_create", errno: rc)
    }
    #if canImport(Glibc)
      pthread_detach(thread)
    #else
      if let thread { pthread_detach(thread) }
    #endif
  }

  /// An identifier of the calling thread (never 0).
  package static var currentID: UInt {
    #if canImport(Glibc)
      UInt(pthread_self())
    #else
      UInt(bitPattern: pthread_self())
    #endif
  }

  /// The calling thread's name (empty when it has none).
  package static var currentName: String {
    var buffer = [CChar](repeating: 0, count: maximumNameLength + 1)
    guard sb_thread_get_name(&buffer, buffer.count) == 0 else { return "" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// `name` cut to ``maximumNameLength`` bytes without splitting a character.
  static func truncated(_ name: String) -> String {
    var result = ""
    var bytes = 0
    for character in name {
      let size = character.utf8.count
      if bytes + size > maximumNameLength { break }
      result.append(character)
      bytes += size
    }
    return result
  }
}
