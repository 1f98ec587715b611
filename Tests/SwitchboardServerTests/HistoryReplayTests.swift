import SwitchboardChat
import SwitchboardIO
import SwitchboardWire
import Testing

@testable import SwitchboardServer

/// The pure parts of the bounds on replays and growth, without sockets: how a replay is
/// cut into slices and holds what arrives meanwhile, the room cap, the joins a minute.
@Suite(.onTestThreads)
struct HistoryReplayTests {
  private func messages(_ count: Int, textBytes: Int) -> [ChatMessage] {
    (1...count).map {
      ChatMessage(
        id: UInt64($0), room: "r", time: 0, author: "a", color: "red",
        text: String(repeating: "x", count: textBytes))
    }
  }

  @Test func slicesStayWithinTheBudgetAndCoverEveryMessageInOrder() {
    let all = messages(100, textBytes: 10_000)
    let replay = HistoryReplay(all, epoch: "e", recovered: true)
    var seen: [UInt64] = []
    var slices = 0
    while replay.phase == .sending {
      let slice = replay.nextSlice()
      let bytes = slice.reduce(0) { $0 + JSONDialect.sizeBound($1) }
      #expect(slice.count == 1 || bytes <= HistoryReplay.sliceBytes)
      seen += slice.map(\.id)
      slices += 1
    }
    #expect(seen == Array(1...100))
    #expect(slices > 1)
  }

  @Test func aMessageLargerThanTheBudgetIsASliceOfItsOwn() {
    let all = messages(3, textBytes: HistoryReplay.sliceBytes)
    #expect(HistoryReplay.sliceEnd(all, from: 0) == 1)
    #expect(HistoryReplay.sliceEnd(all, from: 2) == 3)
  }

  @Test func anEmptyHistoryIsOneEmptySlice() {
    let replay = HistoryReplay([], epoch: "e", recovered: false)
    #expect(replay.phase == .sending)
    #expect(replay.nextSlice().isEmpty)
    #expect(replay.phase == .sent)
  }

  @Test func historyRequestsWaitInOrderUpToTheirBound() {
    let replay = HistoryReplay(messages(1, textBytes: 1), epoch: "e", recovered: true)
    for limit in 1...HistoryReplay.maxRequestsAfter { #expect(replay.requestAfter(limit)) }
    #expect(!replay.requestAfter(1))
    #expect(replay.requestsAfter == Array(1...HistoryReplay.maxRequestsAfter))
    let next = HistoryReplay([], epoch: "e", recovered: true, requested: true)
    next.inherit(replay.requestsAfter.dropFirst())
    #expect(next.requestsAfter == Array(2...HistoryReplay.maxRequestsAfter))
  }

  @Test func heldOutputLeavesInOrderAndPastTheLimitTheMemberIsTooSlow() {
    let replay = HistoryReplay(messages(1, textBytes: 1), epoch: "e", recovered: true)
    #expect(replay.hold(SharedBytes(string: "one"), limit: 8))
    #expect(replay.hold(SharedBytes(string: "two"), limit: 8))
    #expect(!replay.hold(SharedBytes(string: "three"), limit: 8))
    #expect(replay.takeHeld().map(\.count) == [3, 3, 5])
    #expect(replay.heldBytes == 0)
  }

  @Test func theRoomCapKeepsKnownRoomsAndRefusesNewOnesPastIt() {
    let cap = RoomCap(limit: 3, known: ["lobby"])
    #expect(cap.admit("a") == .added)
    #expect(cap.admit("b") == .added)
    #expect(cap.admit("c") == .refused(limit: 3))
    #expect(cap.admit("a") == .known)
    #expect(cap.admit("lobby") == .known)
    #expect(RoomCap(limit: nil, known: []).admit("any") == .added)
  }

  @Test func joinsAMinuteRefillAndIdleMembersAreSweptOut() {
    let second: UInt64 = 1_000_000_000
    var limiter = JoinRateLimiter(perMinute: 2)
    let (a, b) = (MemberID(raw: 1), MemberID(raw: 2))
    let answers = [
      limiter.admit(a, now: 0), limiter.admit(a, now: 0), limiter.admit(a, now: 0), limiter.admit(b, now: 0),
      limiter.admit(a, now: 30 * second),
    ]
    #expect(answers == [true, true, false, true, true])
    // Many members joining once: the table keeps only those whose minute is not over.
    for raw in 10..<200 { _ = limiter.admit(MemberID(raw: UInt64(raw)), now: UInt64(raw) * 60 * second) }
    #expect(limiter.count <= 64)
    var unlimited = JoinRateLimiter(perMinute: nil)
    let admitted = (0..<100).allSatisfy { _ in unlimited.admit(a, now: 0) }
    #expect(admitted)
  }
}
