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
/// on every flush). Loop thread only.
final class WriteRunPool {
  // Safety (exclusivity): touched only on the loop's thread, by the queue operations of
  // its connections, none of which overlaps another; the dynamic checks are off, as for
  // the connections' own state (see TCPConnection).

  /// The size of one block (header, frame ends and bytes). At most glibc's largest
  /// per-thread cached size (1,032 bytes), so that a block past ``kept`` is still a cheap
  /// `malloc` and `free`.
  static let blockSize = 1024
  /// The most spare blocks kept (16 KiB a loop): the runs of a room of a few members per
  /// iteration; past it, returned blocks are freed. Small beside issue 16.3's budget: the
  /// kept blocks, filled by one fan-out to a thousand idle connections, are 16 bytes a
  /// connection of the heap that MemoryTests bounds.
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

  /// The spare blocks held (for tests).
  var spareCount: Int { count }

  @inline(never)
  static func allocate() -> UnsafeMutableRawPointer {
    guard let block = malloc(blockSize) else { fatalError("WriteRunPool: out of memory") }
    return block
  }
}

@available(*, unavailable)
extension WriteRunPool: Sendable {}
