import Testing

@testable import SwitchboardIO
import SwitchboardTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The write queue without a socket: what `fill` describes is what a send would take, and
/// `consume` moves past exactly what the kernel reports taken.
@Suite(.onTestThreads) struct PendingWritesTests {
  /// Chunks of the given sizes whose bytes count up from 0 (mod 256) across the whole
  /// queue, so the concatenation is easy to check.
  static func chunks(_ sizes: [Int], from start: Int = 0) -> [SharedBytes] {
    var next = start
    return sizes.map { size in
      defer { next += size }
      return SharedBytes((0..<size).map { UInt8(truncatingIfNeeded: next + $0) })
    }
  }

  static func queue(_ sizes: [Int]) -> PendingWrites {
    var queue = PendingWrites()
    for chunk in chunks(sizes) { queue.append(chunk) }
    return queue
  }

  /// What a send of up to `capacity` iovecs would carry: the bytes `fill` describes in
  /// the iovecs `iovecCount` asks for.
  static func described(_ queue: borrowing PendingWrites, capacity: Int = 64) -> (iovecs: Int, bytes: [UInt8]) {
    let iov = UnsafeMutablePointer<iovec>.allocate(capacity: capacity)
    defer { iov.deallocate() }
    let count = queue.iovecCount(capacity: capacity)
    let total = queue.fill(iov, count: count)
    var bytes: [UInt8] = []
    for n in 0..<count {
      bytes += UnsafeRawBufferPointer(start: iov[n].iov_base, count: iov[n].iov_len)
    }
    #expect(bytes.count == total, "fill's byte count matches its iovecs")
    return (count, bytes)
  }

  /// The bytes 0, 1, 2, … (mod 256) from `start`, `count` of them.
  static func run(from start: Int, count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: start + $0) }
  }

  /// What `consume` reports for the loop's trim count: the sizes of the large chunks it
  /// finished, each once, when its last byte left; small chunks and parts count nothing.
  @Test func consumeReportsTheLargeChunksItFinished() {
    let large = PendingWrites.largeChunk
    var queue = Self.queue([10, large, 20, large + 5])
    #expect(queue.consume(5) == 0)  // inside the first small chunk
    #expect(queue.consume(5 + large - 1) == 0)  // all but the last byte of the large one
    #expect(queue.consume(1 + 20) == large)  // its last byte, and the small one after
    #expect(queue.consume(large + 5) == large + 5)
    #expect(queue.isEmpty && queue.bufferedBytes == 0)
  }

  @Test func anEmptyQueueDescribesNothing() {
    var queue = PendingWrites()
    #expect(queue.isEmpty == true)  // compared: `#expect` copies a value to read a lone property
    #expect(queue.bufferedBytes == 0)
    #expect(queue.unsentChunks == 0)
    let (iovecs, bytes) = Self.described(queue)
    #expect(iovecs == 0 && bytes.isEmpty)
    queue.compact()
    queue.consume(0)
    #expect(queue.isEmpty && queue.head == 0 && queue.headOffset == 0)
  }

  @Test func appendingCountsBytesAndKeepsOrder() {
    let queue = Self.queue([3, 5, 7])
    #expect(queue.isEmpty == false)
    #expect(queue.bufferedBytes == 15)
    #expect(queue.unsentChunks == 3)
    let (iovecs, bytes) = Self.described(queue)
    #expect(iovecs == 3)
    #expect(bytes == Self.run(from: 0, count: 15))
  }

  @Test func partialConsumesCrossChunkBoundaries() {
    var queue = Self.queue([3, 5, 7])
    queue.consume(2)  // inside the first chunk
    #expect(queue.head == 0 && queue.headOffset == 2 && queue.bufferedBytes == 13)
    #expect(Self.described(queue).bytes == Self.run(from: 2, count: 13))

    queue.consume(4)  // the rest of the first chunk and 3 of the second
    #expect(queue.head == 1 && queue.headOffset == 3 && queue.bufferedBytes == 9)
    let (iovecs, bytes) = Self.described(queue)
    #expect(iovecs == 2)
    #expect(bytes == Self.run(from: 6, count: 9))

    queue.consume(9)  // everything left, across the last boundary
    #expect(queue.isEmpty && queue.bufferedBytes == 0 && queue.headOffset == 0)
  }

  @Test func consumingExactlyToAChunkBoundaryStartsTheNextChunkWhole() {
    var queue = Self.queue([3, 5, 7])
    queue.consume(3)
    #expect(queue.head == 1 && queue.headOffset == 0)
    queue.consume(5)
    #expect(queue.head == 2 && queue.headOffset == 0)
    let (iovecs, bytes) = Self.described(queue)
    #expect(iovecs == 1)
    #expect(bytes == Self.run(from: 8, count: 7))
  }

  @Test(arguments: [1, 2, 63, 64])
  func fillStopsAtTheIovecCapacity(capacity: Int) {
    let queue = Self.queue(Array(repeating: 10, count: 100))
    let (iovecs, bytes) = Self.described(queue, capacity: capacity)
    #expect(iovecs == capacity)
    #expect(bytes == Self.run(from: 0, count: 10 * capacity))
    // Filling describes; it takes nothing.
    #expect(queue.bufferedBytes == 1000 && queue.unsentChunks == 100)
  }

  @Test func fillStartsAtTheHeadOffsetOfAPartlySentChunk() {
    var queue = Self.queue(Array(repeating: 10, count: 100))
    queue.consume(15)
    let (iovecs, bytes) = Self.described(queue, capacity: 4)
    #expect(iovecs == 4)
    #expect(bytes == Self.run(from: 15, count: 5 + 30))
  }

  @Test func compactingADrainedShortQueueKeepsItsStorage() {
    var queue = Self.queue([4, 4, 4])
    let capacity = queue.capacity
    queue.consume(12)
    queue.compact()
    #expect(queue.isEmpty && queue.head == 0 && queue.chunkCount == 0)
    #expect(queue.capacity == capacity)
  }

  @Test func compactingADrainedLongQueueReleasesItsStorage() {
    var queue = Self.queue(Array(repeating: 1, count: 100))
    queue.consume(100)
    queue.compact()
    #expect(queue.isEmpty && queue.head == 0 && queue.capacity == 0)
  }

  @Test func compactionDropsALongSentPrefixAndKeepsOrder() {
    var queue = Self.queue(Array(repeating: 10, count: 60))
    queue.consume(10 * 20 + 3)
    queue.compact()  // 20 sent chunks: too few to be worth shifting
    #expect(queue.head == 20 && queue.chunkCount == 60)
    queue.consume(10 * 20)
    queue.compact()  // 40 of 60 sent: shifted out
    #expect(queue.head == 0 && queue.headOffset == 3 && queue.chunkCount == 20)
    #expect(queue.bufferedBytes == 10 * 20 - 3)
    #expect(Self.described(queue).bytes == Self.run(from: 403, count: 197))
  }

  @Test func removeAllForgetsEverything() {
    var queue = Self.queue([5, 5])
    queue.consume(7)
    queue.removeAll()
    #expect(queue.isEmpty && queue.bufferedBytes == 0 && queue.head == 0 && queue.headOffset == 0)
    queue.append(Self.chunks([2])[0])
    #expect(Self.described(queue).bytes == Self.run(from: 0, count: 2))
  }

  /// 10,000 chunks of random sizes, appended in bursts while a pretend kernel takes
  /// random parts of what each fill describes — the flush cycle the connection runs.
  /// Every byte must leave once, in order, and the counts must agree throughout.
  @Test(arguments: [1, 7, 42])
  func aLargeQueueSentInRandomPartsDeliversEveryByteInOrder(seed: UInt64) {
    // A counter through a 64-bit mixer (MurmurHash3's finaliser): spread out, and the
    // same every run, so a failing seed reproduces.
    var counter = seed << 32
    func random(below bound: Int) -> Int {
      counter += 1
      var z = counter
      z = (z ^ (z >> 33)) &* 0xFF51_AFD7_ED55_8CCD
      z = (z ^ (z >> 33)) &* 0xC4CE_B9FE_1A85_EC53
      return Int((z ^ (z >> 33)) % UInt64(bound))
    }
    var queue = PendingWrites()
    var appended = 0
    var sent: [UInt8] = []
    var chunksLeft = 10_000
    while chunksLeft > 0 || !queue.isEmpty {
      let burst = min(chunksLeft, random(below: 200))
      let sizes = (0..<burst).map { _ in 1 + random(below: 300) }
      for chunk in Self.chunks(sizes, from: appended) { queue.append(chunk) }
      appended += sizes.reduce(0, +)
      chunksLeft -= burst
      #expect(queue.bufferedBytes == appended - sent.count)
      let described = Self.described(queue).bytes
      let taken = random(below: described.count + 1)
      sent += described[0..<taken]
      queue.consume(taken)
      queue.compact()
      #expect(queue.chunkCount <= 2 * queue.unsentChunks + 32, "the sent prefix stays bounded")
    }
    #expect(sent.count == appended)
    #expect(sent == Self.run(from: 0, count: appended))
  }
}
