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
/// Small chunks (up to ``Run/copyLimit`` bytes, a chat frame) are not queued by reference
/// when appended with ``append(_:runs:)``: their bytes are copied into a *run*, a block
/// from the loop's ``WriteRunPool`` that takes the frames appended one after another and
/// leaves as one iovec. A 66-byte copy costs less than what a reference costs here (a
/// retain on append, a release once sent, an iovec and a step of ``consume(_:)`` each),
/// and the run goes back to the pool once sent, so an idle connection keeps no bytes.
/// Large chunks stay queued by reference, shared with the other connections they go to.
///
/// This is the fan-out's hot path: a delivery appends once, fills once, consumes once and
/// compacts once. The methods are `@inline(__always)` because the connection's callers
/// are large enough that the optimiser otherwise keeps them as calls (measured with
/// callgrind the way docs/BENCHMARKS.md describes).
struct PendingWrites: ~Copyable {
  // The chunks live in one malloc'd block of our own: a header (capacity, count) and then
  // the slots: references, each holding one retain the queue owns, or runs (a block
  // address with bit 0 set; the queue owns the block). An array of class references
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
  /// A chunk: a retained ``SharedBytes`` (its address), or a run (its block's address with
  /// bit 0 set — blocks and objects are at least 8-byte aligned, so the bit is free).
  private typealias Slot = UInt

  init() {}

  deinit {
    guard let storage else { return }
    Self.release(storage, 0..<Self.count(storage), runs: nil)
    free(storage)
  }

  /// The layout of a run's block (``WriteRunPool/blockSize`` bytes): the bytes used
  /// (`Int32`), the frames in it (`Int32`), where each frame ends (`UInt16` each, at most
  /// ``maxFrames``), then the bytes. The frame ends are kept for one rare case: a slow
  /// consumer's backlog is dropped up to the end of the frame the kernel took part of
  /// (``dropUnstarted(runs:)``), exactly as when each frame was a chunk of its own.
  enum Run {
    /// The largest chunk copied into a run; larger ones are queued by reference.
    static let copyLimit = 512
    /// The most frames one run holds (128 bytes of frame ends).
    static let maxFrames = 64
    static let endsOffset = 8
    static let dataOffset = 144
    /// The bytes one run holds.
    static let capacity = WriteRunPool.blockSize - dataOffset

    @inline(__always)
    static func used(_ block: UnsafeMutableRawPointer) -> Int { Int(block.load(as: Int32.self)) }

    @inline(__always)
    static func frames(_ block: UnsafeMutableRawPointer) -> Int {
      Int(block.load(fromByteOffset: 4, as: Int32.self))
    }

    @inline(__always)
    static func setUsed(_ block: UnsafeMutableRawPointer, _ used: Int, frames: Int) {
      block.storeBytes(of: Int32(truncatingIfNeeded: used), as: Int32.self)
      block.storeBytes(of: Int32(truncatingIfNeeded: frames), toByteOffset: 4, as: Int32.self)
    }

    /// Where frame `index` (below ``frames(_:)``) ends.
    @inline(__always)
    static func end(_ block: UnsafeMutableRawPointer, _ index: Int) -> Int {
      Int(block.load(fromByteOffset: endsOffset + 2 * index, as: UInt16.self))
    }

    /// Copies `count` bytes behind the run's, as one more frame; `false` when they do not
    /// fit (bytes or frames).
    @inline(__always)
    static func append(_ block: UnsafeMutableRawPointer, _ source: UnsafeRawPointer, _ count: Int) -> Bool {
      let used = used(block)
      let frames = frames(block)
      guard used + count <= capacity, frames < maxFrames else { return false }
      (block + dataOffset + used).copyMemory(from: source, byteCount: count)
      block.storeBytes(of: UInt16(truncatingIfNeeded: used + count), toByteOffset: endsOffset + 2 * frames, as: UInt16.self)
      setUsed(block, used + count, frames: frames + 1)
      return true
    }
  }

  @inline(__always)
  private static func isRun(_ slot: Slot) -> Bool { slot & 1 != 0 }

  @inline(__always)
  private static func runBlock(_ slot: Slot) -> UnsafeMutableRawPointer {
    UnsafeMutableRawPointer(bitPattern: slot & ~1).unsafelyUnwrapped
  }

  @inline(__always)
  private static func reference(_ slot: Slot) -> Unmanaged<SharedBytes> {
    Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: slot).unsafelyUnwrapped)
  }

  /// A chunk's bytes, borrowed: no retain.
  @inline(__always)
  private static func extent(_ slot: Slot) -> (base: UnsafeMutableRawPointer, count: Int) {
    if isRun(slot) {
      let block = runBlock(slot)
      return (block + Run.dataOffset, Run.used(block))
    }
    return reference(slot)._withUnsafeGuaranteedRef { ($0.base, $0.count) }
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

  /// The bytes of the chunk at `index` (below ``chunkCount``), borrowed: no retain.
  @inline(__always)
  private func chunk(_ index: Int) -> (base: UnsafeMutableRawPointer, count: Int) {
    Self.extent(Self.slots(storage.unsafelyUnwrapped)[index])
  }

  /// Gives up the chunks in `range`: references released, runs back to `runs` (freed
  /// without one).
  private static func release(_ storage: UnsafeMutableRawPointer, _ range: Range<Int>, runs: WriteRunPool?) {
    let slots = Self.slots(storage)
    for i in range {
      let slot = slots[i]
      if isRun(slot) {
        if let runs { runs.give(runBlock(slot)) } else { free(runBlock(slot)) }
      } else {
        reference(slot).release()
      }
    }
  }

  /// Whether every queued byte was sent.
  @inline(__always)
  var isEmpty: Bool { head >= chunkCount }

  /// Chunks with bytes still to send (the first perhaps in part).
  var unsentChunks: Int { chunkCount - head }

  /// Queues `bytes` behind everything queued so far, by reference: the queue takes the
  /// reference.
  @inline(__always)
  mutating func append(_ bytes: consuming SharedBytes) {
    bufferedBytes += bytes.count
    push(Slot(bitPattern: Unmanaged.passRetained(bytes).toOpaque()))
  }

  /// Queues `bytes` behind everything queued so far: copied into the run at the tail of the
  /// queue (one from `runs` if there is none, or it is full) when at most
  /// ``Run/copyLimit`` bytes, else by reference (retained). The caller keeps its reference.
  @inline(__always)
  mutating func append(_ bytes: SharedBytes, runs: WriteRunPool) {
    let count = bytes.count
    if count > Run.copyLimit {
      append(bytes)
    } else {
      append(copying: bytes.base, count: count, runs: runs)
    }
  }

  /// Queues `bytes` as a connection's write does: by reference when nothing is queued
  /// (``takesRun(_:)``), else as ``append(_:runs:)``.
  ///
  /// The first chunk of an empty queue goes by reference because a run is a 4 KiB block:
  /// output that is one frame per connection — a keepalive tick's pings, one broadcast to a
  /// room of idle members — would otherwise take a block for every connection at once (4
  /// MiB for 1,000 connections, where their references are ~100 KiB together), and the
  /// pages stay resident after the blocks are freed. Runs pay off from the second frame on,
  /// when a connection's output is batched.
  @inline(__always)
  mutating func appendWritten(_ bytes: SharedBytes, runs: WriteRunPool) {
    if takesRun(bytes.count) {
      append(copying: bytes.base, count: bytes.count, runs: runs)
    } else {
      append(bytes)
    }
  }

  /// Whether a write of `count` bytes goes into a run (see ``appendWritten(_:runs:)``): at
  /// most ``Run/copyLimit`` bytes, behind at least one unsent chunk.
  @inline(__always)
  func takesRun(_ count: Int) -> Bool {
    count <= Run.copyLimit && !isEmpty
  }

  /// Queues a copy of the `count` bytes at `source` (at most ``Run/copyLimit``) behind
  /// everything queued so far, in the run at the tail of the queue (or a new one from
  /// `runs`).
  @inline(__always)
  mutating func append(copying source: UnsafeRawPointer, count: Int, runs: WriteRunPool) {
    bufferedBytes += count
    if let storage {
      let chunks = Self.count(storage)
      // Only a run not sent whole yet takes more bytes: one before `head` has left.
      if chunks > head {
        let last = Self.slots(storage)[chunks - 1]
        if Self.isRun(last), Run.append(Self.runBlock(last), source, count) { return }
      }
    }
    appendRun(copying: source, count: count, runs: runs)
  }

  /// Starts a run with the bytes (out of line: once per run, not per frame).
  @inline(never)
  private mutating func appendRun(copying source: UnsafeRawPointer, count: Int, runs: WriteRunPool) {
    let block = runs.take()
    Run.setUsed(block, 0, frames: 0)
    _ = Run.append(block, source, count)
    push(Slot(bitPattern: block) | 1)
  }

  /// Appends a slot, growing the block if need be.
  @inline(__always)
  private mutating func push(_ slot: Slot) {
    var count = 0
    if let storage {
      count = Self.count(storage)
      if count == storage.load(as: Int.self) { grow() }
    } else {
      grow()
    }
    let storage = self.storage.unsafelyUnwrapped
    Self.slots(storage)[count] = slot
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
      let (base, size) = chunk(head + n)
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
      let size = chunk(head).count
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
  /// short queue), or a long sent prefix of a queue still sending. Their runs go back to
  /// `runs` (or are freed).
  @inline(__always)
  mutating func compact(runs: WriteRunPool? = nil) {
    guard let storage else { return }
    let count = Self.count(storage)
    if head >= count {
      Self.release(storage, 0..<count, runs: runs)
      if count <= Self.keptChunks {
        Self.setCount(storage, 0)
      } else {
        free(storage)
        self.storage = nil
      }
      head = 0
    } else if head > 32 && head * 2 > count {
      Self.release(storage, 0..<head, runs: runs)
      let slots = Self.slots(storage)
      UnsafeMutableRawPointer(slots).copyMemory(from: slots + head, byteCount: (count - head) * MemoryLayout<Slot>.stride)
      Self.setCount(storage, count - head)
      head = 0
    }
  }

  /// Drops every chunk not begun yet, keeping the rest of one a send took part of (so that
  /// what is queued next starts where a chunk ended) — of a run, the rest of the frame a
  /// send took part of. For a slow consumer's farewell.
  mutating func dropUnstarted(runs: WriteRunPool? = nil) {
    guard let storage else { return }
    let keep = headOffset > 0 ? head + 1 : head
    if headOffset > 0, head < Self.count(storage), case let slot = Self.slots(storage)[head], Self.isRun(slot) {
      let block = Self.runBlock(slot)
      let used = Run.used(block)
      var frame = 0
      while Run.end(block, frame) < headOffset { frame += 1 }  // the last end is `used`, past `headOffset`
      let cut = Run.end(block, frame)
      bufferedBytes -= used - cut
      Run.setUsed(block, cut, frames: frame + 1)
      // Sent up to a frame's end exactly: no frame is in progress, and the run has left.
      if cut == headOffset {
        head += 1
        headOffset = 0
      }
    }
    guard keep < Self.count(storage) else { return }
    for i in keep..<Self.count(storage) { bufferedBytes -= chunk(i).count }
    Self.release(storage, keep..<Self.count(storage), runs: runs)
    Self.setCount(storage, keep)
  }

  /// Drops everything, sent or not (the connection closed).
  mutating func removeAll() {
    self = PendingWrites()
  }
}
