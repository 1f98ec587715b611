import SwitchboardChat
import SwitchboardWire
import Testing

@testable import SwitchboardRedis

/// The per-room delivery order of the Redis broker, without Redis: duplicates dropped,
/// gaps held and filled, trimmed ids skipped, epoch changes.
@Suite(.onTestThreads)
struct RedisRoomSequenceTests {
  private func message(_ id: UInt64) -> ChatMessage {
    ChatMessage(id: id, room: "r", time: 0, author: "a", color: "red", text: "m\(id)")
  }

  private func ids(_ step: RedisRoomSequence.Step) -> [UInt64] { step.deliver.map { $0.0.id } }

  @Test func inOrderMessagesPassAndDuplicatesAreDropped() {
    var sequence = RedisRoomSequence()
    #expect(ids(sequence.open(last: 3, epoch: "e")) == [])
    #expect(ids(sequence.receive(message(3), epoch: "e", origin: nil)) == [])
    #expect(ids(sequence.receive(message(4), epoch: "e", origin: nil)) == [4])
    #expect(ids(sequence.receive(message(4), epoch: "e", origin: nil)) == [])
    #expect(ids(sequence.receive(message(5), epoch: "e", origin: nil)) == [5])
    #expect(sequence.delivered == 5)
  }

  @Test func whatArrivesWhileOpeningWaitsForTheState() {
    var sequence = RedisRoomSequence()
    #expect(ids(sequence.receive(message(2), epoch: "e", origin: nil)) == [])
    #expect(ids(sequence.receive(message(3), epoch: "e", origin: MemberID(raw: 7))) == [])
    let step = sequence.open(last: 2, epoch: "e")
    #expect(ids(step) == [3])
    #expect(step.deliver.first?.1 == MemberID(raw: 7))
    #expect(!step.fill)
  }

  @Test func aLateOpenAnswerForAnOpenRoomChangesNothing() {
    var sequence = RedisRoomSequence()
    _ = sequence.open(last: 1, epoch: "e")
    #expect(ids(sequence.receive(message(2), epoch: "e", origin: nil)) == [2])
    let late = sequence.open(last: 7, epoch: "other")
    #expect(ids(late) == [] && !late.fill)
    #expect(sequence.delivered == 2 && sequence.epoch == "e" && sequence.phase == .open)
    #expect(ids(sequence.receive(message(3), epoch: "e", origin: nil)) == [3])
  }

  @Test func aGapHoldsLaterMessagesUntilTheFillCloses() {
    var sequence = RedisRoomSequence()
    _ = sequence.open(last: 1, epoch: "e")
    let gap = sequence.receive(message(4), epoch: "e", origin: nil)
    #expect(ids(gap) == [] && gap.fill)
    #expect(sequence.phase == .filling)
    // A second message during the fill asks for no second fill.
    let more = sequence.receive(message(5), epoch: "e", origin: nil)
    #expect(ids(more) == [] && !more.fill)
    #expect(ids(sequence.filled([message(2), message(3), message(4)], epoch: "e")) == [2, 3, 4, 5])
    #expect(sequence.phase == .open && sequence.delivered == 5)
  }

  @Test func idsTheStreamNoLongerHoldsAreSkipped() {
    var sequence = RedisRoomSequence()
    _ = sequence.open(last: 1, epoch: "e")
    _ = sequence.receive(message(10), epoch: "e", origin: nil)
    // Trimmed: the stream starts at 8.
    #expect(ids(sequence.filled([message(8), message(9), message(10)], epoch: "e")) == [8, 9, 10])
    _ = sequence.receive(message(20), epoch: "e", origin: nil)
    // Nothing in the stream at all: skip to what arrived.
    #expect(ids(sequence.filled([], epoch: "e")) == [20])
  }

  @Test func anIncompleteFillAsksForMore() {
    var sequence = RedisRoomSequence()
    _ = sequence.open(last: 0, epoch: "e")
    _ = sequence.receive(message(5), epoch: "e", origin: nil)
    let first = sequence.filled([message(1), message(2)], epoch: "e", complete: false)
    #expect(ids(first) == [1, 2] && first.fill)
    #expect(ids(sequence.filled([message(3), message(4)], epoch: "e")) == [3, 4, 5])
  }

  @Test func aNewEpochStartsOverFromItsFirstMessage() {
    var sequence = RedisRoomSequence()
    _ = sequence.open(last: 40, epoch: "old")
    #expect(ids(sequence.receive(message(1), epoch: "new", origin: nil)) == [1])
    #expect(sequence.epoch == "new" && sequence.delivered == 1)
    let gap = sequence.receive(message(3), epoch: "new", origin: nil)
    #expect(gap.fill)
    #expect(ids(sequence.filled([message(2), message(3)], epoch: "new")) == [2, 3])
  }

  @Test func resyncReadsOnlyWhenOpenAndIdle() {
    var sequence = RedisRoomSequence()
    let whileOpening = sequence.resync()
    #expect(!whileOpening)
    _ = sequence.open(last: 0, epoch: "e")
    let first = sequence.resync()
    let second = sequence.resync()
    #expect(first && !second)
    sequence.fillFailed()
    #expect(sequence.phase == .open)
  }
}
