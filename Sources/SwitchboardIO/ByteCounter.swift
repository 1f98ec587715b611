import Synchronization

/// Bytes a group of connections read and wrote (for metrics): a connection with a
/// ``TCPConnection/byteCounter`` adds to it at every read and every send the kernel
/// accepted — per system call, not per message. Meant to be one per loop and kind of
/// connection, so the atomics are never contended; read from any thread.
public final class ByteCounter: Sendable {
  /// Bytes read from sockets.
  public let received = Atomic<Int>(0)
  /// Bytes the kernel accepted for sending.
  public let sent = Atomic<Int>(0)

  /// A counter at zero.
  public init() {}
}
