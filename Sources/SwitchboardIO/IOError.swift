#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An error from a system call, carrying the call's name and `errno`.
public struct IOError: Error, Sendable, CustomStringConvertible, Equatable {
  /// The name of the failing call (`"bind"`, `"send"`, …) or operation.
  public let call: String
  /// The `errno` value the call left, or 0 for errors that did not come from the kernel.
  public let errno: Int32
  /// Extra context, such as the address a bind failed on.
  public let detail: String

  /// Makes an error for `call` with the given `errno`.
  public init(call: String, errno: Int32, detail: String = "") {
    self.call = call
    self.errno = errno
    self.detail = detail
  }

  /// `true` for the errors a peer causes by vanishing (reset, broken pipe).
  public var isConnectionReset: Bool {
    errno == ECONNRESET || errno == EPIPE || errno == ECONNABORTED || errno == ETIMEDOUT
  }

  public var description: String {
    let reason = errno == 0 ? "" : ": " + String(cString: strerror(errno))
    return detail.isEmpty ? "\(call) failed\(reason)" : "\(call) \(detail) failed\(reason)"
  }
}

/// The outcome of a non-blocking system call: done, or it would have blocked.
public enum IOResult<Value> {
  case processed(Value)
  case wouldBlock
}

/// Runs a system call that returns -1 on error: retries `EINTR`, reports `EAGAIN` as
/// `.wouldBlock`, and throws any other failure as an ``IOError`` naming the call.
@inline(__always)
func syscall<T: FixedWidthInteger>(
  _ name: StaticString, _ body: () -> T
) throws(IOError) -> IOResult<T> {
  while true {
    let result = body()
    if result >= 0 { return .processed(result) }
    let err = errno
    switch err {
    case EINTR: continue
    case EAGAIN, EWOULDBLOCK: return .wouldBlock
    default: throw IOError(call: "\(name)", errno: err)
    }
  }
}

/// Like ``syscall(_:_:)`` for calls that never block (bind, setsockopt, …).
@inline(__always)
@discardableResult
func syscallBlocking<T: FixedWidthInteger>(_ name: StaticString, _ body: () -> T) throws(IOError) -> T {
  while true {
    let result = body()
    if result >= 0 { return result }
    let err = errno
    if err == EINTR { continue }
    throw IOError(call: "\(name)", errno: err)
  }
}
