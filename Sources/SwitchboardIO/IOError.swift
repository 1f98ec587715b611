#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An error from a system call, carrying the call's name and `errno`, and the ``Kind`` a
/// caller matches on (`error.kind == .slowConsumer`) instead of comparing names or numbers.
public struct IOError: Error, Sendable, CustomStringConvertible, Equatable {
  /// What went wrong, in the terms a caller decides on. An open set: new kinds may be
  /// added, so a `switch` over them needs a `default`.
  public struct Kind: Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
      case slowConsumer, reset, timedOut, refused, addressInUse, unsupported, system, other
    }
    private let code: Code
    private init(_ code: Code) { self.code = code }

    /// The peer left more than ``WriteLimits/maximumBuffered`` bytes unread while the
    /// kernel's buffer was full; the connection reset it. Not from the kernel (`errno` 0).
    public static let slowConsumer = Kind(.slowConsumer)
    /// The peer vanished: `ECONNRESET`, `EPIPE` (wrote after it closed) or `ECONNABORTED`.
    public static let reset = Kind(.reset)
    /// The peer stopped answering: `ETIMEDOUT`.
    public static let timedOut = Kind(.timedOut)
    /// Nothing listens at the address: `ECONNREFUSED`.
    public static let refused = Kind(.refused)
    /// Another socket holds the address: `EADDRINUSE` (98 on Linux, 48 on macOS).
    public static let addressInUse = Kind(.addressInUse)
    /// The system lacks the call or facility: `ENOSYS` (e.g. epoll or io_uring on a
    /// platform without it).
    public static let unsupported = Kind(.unsupported)
    /// Any other `errno`; ``IOError/errno`` says which.
    public static let system = Kind(.system)
    /// A failure that came with no `errno` (a name that does not resolve, a handshake the
    /// peer ended); ``IOError/detail`` says what.
    public static let other = Kind(.other)

    /// The kind of an error that left `errno`.
    public init(errno: Int32) {
      switch errno {
      case 0: self = .other
      case ECONNRESET, EPIPE, ECONNABORTED: self = .reset
      case ETIMEDOUT: self = .timedOut
      case ECONNREFUSED: self = .refused
      case EADDRINUSE: self = .addressInUse
      case ENOSYS: self = .unsupported
      default: self = .system
      }
    }

    public var description: String {
      switch code {
      case .slowConsumer: "slow consumer"
      case .reset: "connection reset"
      case .timedOut: "timed out"
      case .refused: "connection refused"
      case .addressInUse: "address in use"
      case .unsupported: "unsupported"
      case .system: "system error"
      case .other: "other"
      }
    }
  }

  /// What went wrong, to match on.
  public let kind: Kind
  /// The name of the failing call (`"bind"`, `"send"`, …) or operation.
  public let call: String
  /// The `errno` value the call left, or 0 for errors that did not come from the kernel.
  public let errno: Int32
  /// Extra context, such as the address a bind failed on.
  public let detail: String

  /// Makes an error for `call` with the given `errno`; its ``kind`` follows from `errno`.
  public init(call: String, errno: Int32, detail: String = "") {
    self.init(kind: Kind(errno: errno), call: call, errno: errno, detail: detail)
  }

  private init(kind: Kind, call: String, errno: Int32, detail: String) {
    self.kind = kind
    self.call = call
    self.errno = errno
    self.detail = detail
  }

  /// The error a connection closes with when its peer leaves more than `limit` bytes
  /// unread (``Kind/slowConsumer``).
  public static func slowConsumer(limit: Int) -> IOError {
    IOError(kind: .slowConsumer, call: "slow consumer", errno: 0, detail: "(more than \(limit) bytes unread)")
  }

  /// `true` for the errors a peer causes by vanishing (reset, broken pipe, timed out).
  public var isConnectionReset: Bool {
    kind == .reset || kind == .timedOut
  }

  public var description: String {
    // Not a failed call: the connection ended it, and says so.
    if kind == .slowConsumer { return "\(call) \(detail): connection reset" }
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
