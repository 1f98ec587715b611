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
struct PendingWrites: ~Copyable {
  // The chunks live in one malloc'd block of our own: a header (capacity, count) and then
  // the references, each holding one retain the queue owns. An array of class references
  // would do the same work through the standard library's shared, prespecialized entry
  // points — two calls per append (~30 instructions) and a call and a uniqueness check per
  // removal, on every delivery (callgrind, the way docs/BENCHMARKS.md describes); here an
  // append is a capacity test and a store, and a removal the release alone. Non-copyable,
  // so the block has one owner and `deinit` releases what is still queued.

  /// The block: `capacity`, `count`, then `capacity` slots; `nil` until the first append.
  private var storage: UnsafeMutableRawPointer?
  /// The index of the first chunk not sent whole.
  private(set) var head = 0
  /// How much of the chunk at ``head`` was sent already.
  private(set) var headOffset = 0
  /// Bytes not yet sent.
  private(set) var bufferedBytes = 0

  private static let headerSize = 2 * MemoryLayout<Int>.stride
  private typealias Slot = Unmanaged<SharedBytes>

  init() {}

  deinit {
    guard let storage else { return }
    Self.release(storage, 0..<Self.count(storage))
    free(storage)
  }

  /// The slots the block has room for (0 without a block).
  var capacity: Int { storage.map { $0.load(as: Int.self) } ?? 0 }

  /// The chunks held, sent ones before ``head`` included.
  @inline(__always)
  var chunkCount: Int { storage.map(Self.count) ?? 0 }

  @inline(__always)
  private static func count(_ storage: UnsafeMutableRawPointer) -> Int {
    storage.load(fromByteOffset: MemoryLayout<Int>.stride, as: Int.self)
  }

  @inline(__always)
  private static func setCount(_ storage: UnsafeMutableRawPointer, _ count: Int) {
    storage.storeBytes(of: count, toByteOffset: MemoryLayout<Int>.stride, as: Int.self)
  }

  @inline(__always)
  private static func slots(_ storage: UnsafeMutableRawPointer) -> UnsafeMutablePointer<Slot> {
    (storage + headerSize).assumingMemoryBound(to: Slot.self)
  }

  /// The chunk at `index` (below ``chunkCount``), borrowed: no retain.
  @inline(__always)
  private func chunk(_ index: Int) -> Slot {
    Self.slots(storage.unsafelyUnwrapped)[index]
  }

  private static func release(_ storage: UnsafeMutableRawPointer, _ range: Range<Int>) {
    let slots = Self.slots(storage)
    for i in range { slots[i].release() }
  }

  /// Whether every queued byte was sent.
  @inline(__always)
  var isEmpty: Bool { head >= chunkCount }

  /// Chunks with bytes still to send (the first perhaps in part).
  var unsentChunks: Int { chunkCount - head }

  /// Queues `bytes` behind everything queued so far; the queue takes the reference.
  @inline(__always)
  mutating func append(_ bytes: consuming SharedBytes) {
    bufferedBytes += bytes.count
    var count = 0
    if let storage {
      count = Self.count(storage)
      if count == storage.load(as: Int.self) { grow() }
    } else {
      grow()
    }
    let storage = self.storage.unsafelyUnwrapped
    Self.slots(storage)[count] = Slot.passRetained(bytes)
    Self.setCount(storage, count + 1)
  }

  /// Doubles the block (the first holds one slot: a connection that wrote once and went
  /// idle keeps 24 bytes). Out of line: rare, and the append stays small.
  @inline(never)
  private mutating func grow() {
    let old = capacity
    let capacity = max(1, 2 * old)
    guard let grown = realloc(storage, Self.headerSize + capacity * MemoryLayout<Slot>.stride) else {
      fatalError("PendingWrites: out of memory")
    }
    if storage == nil { Self.setCount(grown, 0) }
    grown.storeBytes(of: capacity, as: Int.self)
    storage = grown
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
      let (base, size) = chunk(head + n)._withUnsafeGuaranteedRef { ($0.base, $0.count) }
      let offset = n == 0 ? headOffset : 0
      iov[n] = iovec(iov_base: base + offset, iov_len: size - offset)
      bytes += size - offset
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
      let size = chunk(head)._withUnsafeGuaranteedRef { $0.count }
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

  /// The longest drained queue whose block is kept for the next chunks (32 slots, 272
  /// bytes). A loop that falls behind flushes each connection once per iteration with a
  /// frame per message read in it; at 16 (the bound before) a busy room's ~17 chunks per
  /// flush let the block go and grow again (1, 2, 4 … 32) on every flush.
  static let keptChunks = 32

  /// Drops the chunks sent: all of them when the queue is empty (keeping the block for a
  /// short queue), or a long sent prefix of a queue still sending.
  @inline(__always)
  mutating func compact() {
    guard let storage else { return }
    let count = Self.count(storage)
    if head >= count {
      Self.release(storage, 0..<count)
      if count <= Self.keptChunks {
        Self.setCount(storage, 0)
      } else {
        free(storage)
        self.storage = nil
      }
      head = 0
    } else if head > 32 && head * 2 > count {
      Self.release(storage, 0..<head)
      let slots = Self.slots(storage)
      UnsafeMutableRawPointer(slots).copyMemory(from: slots + head, byteCount: (count - head) * MemoryLayout<Slot>.stride)
      Self.setCount(storage, count - head)
      head = 0
    }
  }

  /// Drops every chunk not begun yet, keeping the rest of one a send took part of (so that
  /// what is queued next starts where a chunk ended). For a slow consumer's farewell.
  mutating func dropUnstarted() {
    let keep = headOffset > 0 ? head + 1 : head
    guard let storage, keep < Self.count(storage) else { return }
    for i in keep..<Self.count(storage) { bufferedBytes -= chunk(i)._withUnsafeGuaranteedRef { $0.count } }
    Self.release(storage, keep..<Self.count(storage))
    Self.setCount(storage, keep)
  }

  /// Drops everything, sent or not (the connection closed).
  mutating func removeAll() {
    self = PendingWrites()
  }
}
