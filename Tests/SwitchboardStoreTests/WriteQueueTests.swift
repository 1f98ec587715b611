import Dispatch
import SwitchboardChat
import SwitchboardTestSupport
import Testing

@testable import SwitchboardStore

@Suite(.onTestThreads)
struct WriteQueueTests {
  private func write(_ id: UInt64) -> PendingWrite {
    PendingWrite(message: makeMessage(id), completion: nil)
  }

  /// The writer's next step as text: `sleep`, `linger`, `stop` or `commit 1,2`.
  private func next(_ queue: inout WriteQueue) -> String {
    switch queue.next() {
    case .sleep: "sleep"
    case .linger: "linger"
    case .stop: "stop"
    case .commit(let batch): "commit " + batch.map { String($0.message.id) }.joined(separator: ",")
    }
  }

  /// `append`'s answer as text: `signal`, `queued` or the rejection's message.
  private func append(_ queue: inout WriteQueue, _ id: UInt64) -> String {
    switch queue.append(write(id)) {
    case .queued(let signal): signal ? "signal" : "queued"
    case .rejected(let error): error.message
    }
  }

  @Test func idleWriterIsSignalledOnceAndLingersOncePerBusySpell() {
    var queue = WriteQueue(maxBatch: 3, maxPending: 100, lingers: true)
    #expect(next(&queue) == "sleep")
    #expect(append(&queue, 1) == "signal")
    #expect(append(&queue, 2) == "queued")
    #expect(next(&queue) == "linger")
    queue.lingerEnded()
    #expect(next(&queue) == "commit 1,2")
    // Still busy: what arrives now is committed without lingering again.
    #expect(append(&queue, 3) == "queued")
    #expect(next(&queue) == "commit 3")
    #expect(queue.finish(3).isEmpty)
    #expect(next(&queue) == "sleep")
    #expect(append(&queue, 4) == "signal")
    #expect(next(&queue) == "linger")
  }

  @Test func fullBatchWakesALingeringWriterAndBatchesAreCapped() {
    var queue = WriteQueue(maxBatch: 2, maxPending: 100, lingers: true)
    #expect(next(&queue) == "sleep")
    #expect(append(&queue, 1) == "signal")
    #expect(next(&queue) == "linger")
    #expect(append(&queue, 2) == "signal")
    #expect(append(&queue, 3) == "queued")
    #expect(next(&queue) == "commit 1,2")
    #expect(next(&queue) == "commit 3")
  }

  @Test func flushWaitersAreWokenWhenTheirWritesFinish() {
    var queue = WriteQueue(maxBatch: 10, maxPending: 100, lingers: true)
    #expect(queue.waitForFlush(DispatchSemaphore(value: 0)).wait == false)
    #expect(append(&queue, 1) == "queued")
    #expect(queue.waitForFlush(DispatchSemaphore(value: 0)).wait)
    #expect(append(&queue, 2) == "queued")
    // A flush request skips the linger.
    #expect(next(&queue) == "commit 1,2")
    #expect(queue.finish(2).count == 1)
  }

  @Test func closingRejectsNewWritesAndStopsWhenDrained() {
    var queue = WriteQueue(maxBatch: 10, maxPending: 2, lingers: false)
    #expect(append(&queue, 1) == "queued")
    #expect(append(&queue, 2) == "queued")
    #expect(append(&queue, 3) == "history write queue is full (2 pending writes)")
    #expect(queue.close(DispatchSemaphore(value: 0)).wait)
    #expect(append(&queue, 4) == "history store is closed")
    #expect(next(&queue) == "commit 1,2")
    _ = queue.finish(2)
    #expect(next(&queue) == "stop")
    #expect(queue.takeStopWaiters().count == 1)
    #expect(queue.close(nil).wait == false)
  }

  @Test func closingALingeringWriterWakesItAndItDrainsWithoutLingering() {
    var queue = WriteQueue(maxBatch: 2, maxPending: 100, lingers: true)
    #expect(next(&queue) == "sleep")
    #expect(queue.phase == .idle)
    #expect(append(&queue, 1) == "signal")
    #expect(next(&queue) == "linger")
    #expect(queue.phase == .lingering)
    let closed = queue.close(nil)
    #expect(closed.signalWriter && !closed.wait)
    #expect(queue.phase == .closing)
    // The linger timing out after the close leaves the store closing.
    queue.lingerEnded()
    #expect(queue.phase == .closing)
    if case .rejected(let error) = queue.append(write(2)) {
      #expect(error == .closed)
    } else {
      Issue.record("an append after close was queued")
    }
    #expect(next(&queue) == "commit 1")
    #expect(next(&queue) == "stop")
    #expect(queue.phase == .stopped)
    #expect(queue.waitForFlush(DispatchSemaphore(value: 0)).wait == false)
  }

  @Test func aFullQueueRefusesWithItsOwnKind() {
    var queue = WriteQueue(maxBatch: 10, maxPending: 1, lingers: false)
    #expect(append(&queue, 1) == "queued")
    guard case .rejected(let error) = queue.append(write(2)) else {
      Issue.record("a write past maxPending was queued")
      return
    }
    #expect(error == .queueFull && error != .closed)
  }
}
