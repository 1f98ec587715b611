#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A loop's spare blocks for the byte runs of ``PendingWrites`` (small frames copied into
/// one block instead of queued by reference, see ``PendingWrites/append(_:runs:)``).
///
/// A connection takes a block when its queue needs a run and gives it back once the run
/// has left, so an idle connection keeps none; the loop keeps up to ``kept`` of them for
/// the next iteration's flushes (a block a connection would otherwise `malloc` and `free`
/// on every flush), and frees them once it has been idle for a moment (see
/// ``EventLoop``'s trim), so an idle server keeps none either. Loop thread only.
final class WriteRunPool {
  // Safety (exclusivity): touched only on the loop's thread, by the queue operations of
  // its connections, none of which overlaps another; the dynamic checks are off, as for
  // the connections' own state (see TCPConnection).

  /// The size of one block (header, frame ends and bytes): a connection's share of a
  /// busy iteration's fan-out (60 chat frames) in one iovec.
  static let blockSize = 4096
  /// The most spare blocks kept (64 KiB a loop): the runs of a room of a dozen members
  /// per iteration; past it, returned blocks are freed.
  static let kept = 16

  @exclusivity(unchecked) private var spare: UnsafeMutablePointer<UnsafeMutableRawPointer>
  @exclusivity(unchecked) private var count = 0

  init() {
    spare = .allocate(capacity: Self.kept)
  }

  deinit {
    for i in 0..<count { free(spare[i]) }
    spare.deallocate()
  }

  /// A block of ``blockSize`` bytes, uninitialised.
  @inline(__always)
  func take() -> UnsafeMutableRawPointer {
    if count > 0 {
      count -= 1
      return spare[count]
    }
    return Self.allocate()
  }

  /// Takes back a block from ``take()`` (or frees it when enough are kept).
  @inline(__always)
  func give(_ block: UnsafeMutableRawPointer) {
    if count < Self.kept {
      spare[count] = block
      count += 1
    } else {
      free(block)
    }
  }

  /// The spare blocks held.
  var spareCount: Int { count }

  /// Frees the spare blocks (the loop is idle: the next burst can `malloc` its own).
  func releaseSpares() {
    while count > 0 {
      count -= 1
      free(spare[count])
    }
  }

  @inline(never)
  static func allocate() -> UnsafeMutableRawPointer {
    guard let block = malloc(blockSize) else { fatalError("WriteRunPool: out of memory") }
    return block
  }
}

@available(*, unavailable)
extension WriteRunPool: Sendable {}
