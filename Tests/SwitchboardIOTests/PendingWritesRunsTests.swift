import Testing

@testable import SwitchboardIO
import SwitchboardTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The write queue's runs (``PendingWrites/append(_:runs:)``): small chunks copied into
/// pooled blocks must leave exactly as the same chunks queued by reference would — same
/// bytes, same order, same counts — and the blocks must go back to the pool once sent.
@Suite(.onTestThreads) struct PendingWritesRunsTests {
  typealias Run = PendingWrites.Run

  /// Every unsent byte (iovecs enough for any queue here: runs need fewer than references,
  /// so a send limited to 64 iovecs covers more of a queue with runs).
  static func described(_ queue: borrowing PendingWrites) -> [UInt8] {
    PendingWritesTests.described(queue, capacity: 100_000).bytes
  }

  @Test func smallChunksShareOneRunAndOneIovec() {
    let runs = WriteRunPool()
    var queue = PendingWrites()
    for chunk in PendingWritesTests.chunks([66, 66, 3, 100]) { queue.append(chunk, runs: runs) }
    #expect(queue.bufferedBytes == 235)
    #expect(queue.unsentChunks == 1)
    let (iovecs, bytes) = PendingWritesTests.described(queue)
    #expect(iovecs == 1)
    #expect(bytes == PendingWritesTests.run(from: 0, count: 235))
    queue.consume(235)
    queue.compact(runs: runs)
    #expect(queue.isEmpty && queue.chunkCount == 0)
    #expect(runs.spareCount == 1, "the sent run's block is back in the pool")
  }

  /// A connection's write (``PendingWrites/appendWritten(_:runs:)``): the first small chunk
  /// of an empty queue goes by reference — one frame for each of many connections, a
  /// keepalive tick's pings, must not take a 4 KiB block each — and those behind it into
  /// a run.
  @Test func aWriteToAnEmptyQueueGoesByReferenceAndTheNextIntoARun() {
    let runs = WriteRunPool()
    var queue = PendingWrites()
    let chunks = PendingWritesTests.chunks([66, 66, 66])
    let emptyTakesRun = queue.takesRun(66)
    #expect(!emptyTakesRun)
    queue.appendWritten(chunks[0], runs: runs)
    #expect(queue.unsentChunks == 1)
    let smallTakesRun = queue.takesRun(66)
    let largeTakesRun = queue.takesRun(Run.copyLimit + 1)
    #expect(smallTakesRun && !largeTakesRun)
    queue.appendWritten(chunks[1], runs: runs)
    queue.appendWritten(chunks[2], runs: runs)
    #expect(queue.unsentChunks == 2, "the reference, then one run of two frames")
    let queued = Self.described(queue)
    #expect(queued == PendingWritesTests.run(from: 0, count: 198))
    queue.consume(66)
    queue.compact(runs: runs)
    #expect(runs.spareCount == 0, "the first chunk was a reference: no block came back")
    queue.consume(132)
    queue.compact(runs: runs)
    #expect(queue.isEmpty && runs.spareCount == 1, "the run's block is back in the pool")
  }

  @Test func aLargeChunkIsQueuedByReferenceBetweenRuns() {
    let runs = WriteRunPool()
    var queue = PendingWrites()
    let sizes = [10, Run.copyLimit + 1, 20, 30]
    for chunk in PendingWritesTests.chunks(sizes) { queue.append(chunk, runs: runs) }
    #expect(queue.unsentChunks == 3)  // a run, the reference, a run
    #expect(Self.described(queue) == PendingWritesTests.run(from: 0, count: sizes.reduce(0, +)))
  }

  @Test func aRunFullOfFramesOrBytesStartsAnother() {
    let runs = WriteRunPool()
    var queue = PendingWrites()
    let frames = Array(repeating: 1, count: Run.maxFrames + 1)
    for chunk in PendingWritesTests.chunks(frames) { queue.append(chunk, runs: runs) }
    #expect(queue.unsentChunks == 2)
    var big = PendingWrites()
    let sizes = Array(repeating: Run.copyLimit, count: Run.capacity / Run.copyLimit + 1)
    for chunk in PendingWritesTests.chunks(sizes) { big.append(chunk, runs: runs) }
    #expect(big.unsentChunks == 2)
    #expect(Self.described(big) == PendingWritesTests.run(from: 0, count: sizes.reduce(0, +)))
  }

  @Test func aSentRunTakesNoMoreBytes() {
    let runs = WriteRunPool()
    var queue = PendingWrites()
    queue.append(PendingWritesTests.chunks([10])[0], runs: runs)
    queue.consume(10)  // sent, not compacted yet: the next bytes must not land behind it
    queue.append(PendingWritesTests.chunks([5], from: 10)[0], runs: runs)
    #expect(queue.bufferedBytes == 5)
    #expect(Self.described(queue) == PendingWritesTests.run(from: 10, count: 5))
  }

  @Test func aPartlySentRunStillTakesBytes() {
    let runs = WriteRunPool()
    var queue = PendingWrites()
    queue.append(PendingWritesTests.chunks([10])[0], runs: runs)
    queue.consume(4)
    queue.append(PendingWritesTests.chunks([5], from: 10)[0], runs: runs)
    #expect(queue.unsentChunks == 1 && queue.bufferedBytes == 11)
    #expect(Self.described(queue) == PendingWritesTests.run(from: 4, count: 11))
  }

  /// A slow consumer's backlog is dropped up to the end of the frame a send took part of,
  /// as when every frame was a chunk of its own.
  @Test(arguments: [1, 9, 10, 11, 25, 29])
  func droppingTheBacklogKeepsTheRestOfTheFrameInProgress(sent: Int) {
    let runs = WriteRunPool()
    let sizes = [10, 10, 10, 10]
    var coalesced = PendingWrites()
    var separate = PendingWrites()
    for chunk in PendingWritesTests.chunks(sizes) {
      coalesced.append(chunk, runs: runs)
      separate.append(chunk)
    }
    coalesced.consume(sent)
    separate.consume(sent)
    coalesced.dropUnstarted(runs: runs)
    separate.dropUnstarted()
    #expect(coalesced.bufferedBytes == separate.bufferedBytes)
    #expect(Self.described(coalesced) == Self.described(separate))
    // What follows (the farewell) comes right behind the frame's end.
    let farewell = PendingWritesTests.chunks([3], from: 200)[0]
    coalesced.append(farewell, runs: runs)
    separate.append(farewell)
    #expect(Self.described(coalesced) == Self.described(separate))
  }

  @Test func thePoolKeepsAtMostItsShareAndLetsGoWhenIdle() {
    let runs = WriteRunPool()
    let blocks = (0..<(WriteRunPool.kept + 3)).map { _ in runs.take() }
    for block in blocks { runs.give(block) }
    #expect(runs.spareCount == WriteRunPool.kept)
    runs.releaseSpares()
    #expect(runs.spareCount == 0)
  }

  /// The flush cycle of ``PendingWritesTests/aLargeQueueSentInRandomPartsDeliversEveryByteInOrder(seed:)``
  /// with chunks on both sides of the copy limit, appended to two queues — with runs and by
  /// reference — that must describe the same bytes and count the same throughout.
  @Test(arguments: [3, 8, 51])
  func runsSendTheSameBytesAsReferences(seed: UInt64) {
    var rng = SeededGenerator(seed: seed)
    let runs = WriteRunPool()
    var coalesced = PendingWrites()
    var separate = PendingWrites()
    var appended = 0
    var sent: [UInt8] = []
    var chunksLeft = 2_000
    while chunksLeft > 0 || !coalesced.isEmpty {
      let burst = min(chunksLeft, Int.random(in: 0..<80, using: &rng))
      let sizes = (0..<burst).map { _ in
        Bool.random(using: &rng) ? Int.random(in: 1...100, using: &rng) : Int.random(in: 1...1_500, using: &rng)
      }
      for chunk in PendingWritesTests.chunks(sizes, from: appended) {
        coalesced.append(chunk, runs: runs)
        separate.append(chunk)
      }
      appended += sizes.reduce(0, +)
      chunksLeft -= burst
      let described = Self.described(coalesced)
      let same = described == Self.described(separate)  // (a Bool: a failure prints no arrays)
      #expect(same, "the same bytes queued")
      #expect(coalesced.bufferedBytes == separate.bufferedBytes)
      let taken = Int.random(in: 0...described.count, using: &rng)
      sent += described[0..<taken]
      coalesced.consume(taken)
      separate.consume(taken)
      coalesced.compact(runs: runs)
      separate.compact()
      #expect(coalesced.isEmpty == separate.isEmpty)
    }
    let inOrder = sent == PendingWritesTests.run(from: 0, count: appended)
    #expect(inOrder, "every byte once, in order")
    #expect(runs.spareCount <= WriteRunPool.kept)
  }
}
