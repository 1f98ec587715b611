#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A connection's output queue: the ``SharedBytes`` written and not yet taken by the
/// kernel, in order. A value with no socket: ``TCPConnection`` describes the head with
/// ``fill(_:count:)``, hands the iovecs to `sendmsg` or the loop's io_uring, and
/// ``consume(_:)``s what the kernel reports taken.
///
/// Chunks are not removed one by one as they leave: ``head`` moves past them (and
/// ``headOffset`` into the first one a send took only part of), and ``compact()`` drops
/// what was sent once per flush — emptying the queue in place when everything left,
/// shifting it only when the sent prefix is long (a queue that never empties must not grow
/// without bound, nor be shifted on every partial send).
///
/// This is the fan-out's hot path: a delivery appends once, fills once, consumes once and
/// compacts once. The methods are `@inline(__always)` because the connection's callers
/// are large enough that the optimiser otherwise keeps them as calls (measured with
/// callgrind the way docs/BENCHMARKS.md describes).
struct PendingWrites {
  /// The queued chunks; those before ``head`` are sent and wait for ``compact()``.
  private(set) var chunks: [SharedBytes] = []
  /// The index of the first chunk not sent whole.
  private(set) var head = 0
  /// How much of `chunks[head]` was sent already.
  private(set) var headOffset = 0
  /// Bytes not yet sent.
  private(set) var bufferedBytes = 0

  /// Whether every queued byte was sent.
  @inline(__always)
  var isEmpty: Bool { head >= chunks.count }

  /// Chunks with bytes still to send (the first perhaps in part).
  var unsentChunks: Int { chunks.count - head }

  /// Queues `bytes` behind everything queued so far.
  @inline(__always)
  mutating func append(_ bytes: consuming SharedBytes) {
    bufferedBytes += bytes.count
    chunks.append(bytes)
  }

  /// How many iovecs a send of the unsent bytes takes, at most `capacity` (the size of the
  /// caller's iovec array): one per chunk. Apart from ``fill(_:count:)`` so that the ring
  /// path can reserve exactly that many before filling them.
  @inline(__always)
  func iovecCount(capacity: Int) -> Int {
    min(unsentChunks, capacity)
  }

  /// Describes the first `count` unsent chunks (``iovecCount(capacity:)`` of them, or
  /// fewer), in order, as iovecs starting at `iov` — the first begins at ``headOffset``.
  /// Returns the bytes they cover. The chunks stay queued (and their storage alive) until
  /// ``consume(_:)``. The one place both send paths build their iovecs.
  @inline(__always)
  func fill(_ iov: UnsafeMutablePointer<iovec>, count: Int) -> Int {
    var bytes = 0
    for n in 0..<count {
      let chunk = chunks[head + n]
      let offset = n == 0 ? headOffset : 0
      iov[n] = iovec(iov_base: chunk.base + offset, iov_len: chunk.count - offset)
      bytes += chunk.count - offset
    }
    return bytes
  }

  /// Chunks of this size or more count toward the loop's next heap trim once sent
  /// (``EventLoop/bytesSinceTrim``): a large frame's storage is freed when it has left.
  static let largeChunk = 64 * 1024

  /// Marks the first `count` unsent bytes sent (what a send reported taking; at most
  /// ``bufferedBytes``). Returns the total size of the ``largeChunk``s this finished.
  @inline(__always)
  @discardableResult
  mutating func consume(_ count: Int) -> Int {
    var written = count
    var finishedLarge = 0
    bufferedBytes -= written
    while written > 0 {
      let size = chunks[head].count
      let remaining = size - headOffset
      if written >= remaining {
        written -= remaining
        if size >= Self.largeChunk { finishedLarge += size }
        head += 1
        headOffset = 0
      } else {
        headOffset += written
        written = 0
      }
    }
    return finishedLarge
  }

  /// Drops the chunks sent: all of them when the queue is empty (keeping the array's
  /// storage for a short queue), or a long sent prefix of a queue still sending.
  @inline(__always)
  mutating func compact() {
    if head >= chunks.count {
      if chunks.count <= 16 {
        // Keeps the capacity; `removeLast` is a few instructions each, where
        // `removeAll(keepingCapacity:)` goes through the generic `replaceSubrange`
        // (~200 instructions — on every flush, usually of one chunk).
        while !chunks.isEmpty { chunks.removeLast() }
      } else {
        chunks = []
      }
      head = 0
    } else if head > 32 && head * 2 > chunks.count {
      chunks.removeFirst(head)
      head = 0
    }
  }

  /// Drops every chunk not begun yet, keeping the rest of one a send took part of (so that
  /// what is queued next starts where a chunk ended). For a slow consumer's farewell.
  mutating func dropUnstarted() {
    let keep = headOffset > 0 ? head + 1 : head
    guard keep < chunks.count else { return }
    for chunk in chunks[keep...] { bufferedBytes -= chunk.count }
    chunks.removeSubrange(keep...)
  }

  /// Drops everything, sent or not (the connection closed).
  mutating func removeAll() {
    self = PendingWrites()
  }
}
