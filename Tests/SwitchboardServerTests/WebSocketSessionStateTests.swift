import SwitchboardTestSupport
import SwitchboardIO
import Testing

@testable import SwitchboardServer

/// The WebSocket session's state machine, without sockets: a manual clock.
@Suite(.onTestThreads) struct WebSocketSessionStateTests {
  static let interval = Duration.seconds(30)

  func at(_ seconds: UInt64) -> Deadline { Deadline(nanoseconds: seconds * 1_000_000_000) }

  @Test func chatSessionJoinsThenIsNamedThenLeavesOnFinish() {
    var state = WebSocketSessionState(echo: false, now: at(0))
    #expect(!state.isInRoom && !state.isNamed)
    #expect(state.join() == .join)
    #expect(state.isInRoom && !state.isNamed)
    #expect(state.join() == .join)  // another room, still anonymous
    #expect(state.name() == .announce)
    #expect(state.isNamed)
    #expect(state.name() == .rename)
    #expect(state.join() == .joinAnnounced)
    #expect(state.finish() == .stop(leaveRoom: true))
    #expect(state.finish() == .none)
    #expect(state.isFinished && !state.isInRoom)
  }

  @Test func echoSessionNeverJoinsOrNames() {
    var state = WebSocketSessionState(echo: true, now: at(0))
    #expect(state.join() == .ignore)
    #expect(state.name() == .ignore)
    #expect(state.finish() == .stop(leaveRoom: false))
  }

  @Test func aFinishedSessionIgnoresEverything() {
    var state = WebSocketSessionState(echo: false, now: at(0))
    _ = state.join()
    _ = state.finish()
    let heardAfterFinish = state.heard(at: at(1))
    #expect(!heardAfterFinish)
    #expect(state.join() == .ignore)
    #expect(state.name() == .ignore)
    #expect(state.keepaliveTick(now: at(100), interval: Self.interval) == .none)
    #expect(state == .finished)
  }

  @Test func aQuietPeerIsPingedThenDropped() {
    var state = WebSocketSessionState(echo: false, now: at(0))
    _ = state.join()
    #expect(state.keepaliveTick(now: at(14), interval: Self.interval) == .none)
    #expect(state.keepaliveTick(now: at(15), interval: Self.interval) == .ping)
    #expect(state == .awaitingName(.pinged(lastHeard: at(0))))
    // Still under a whole interval: pinged again.
    #expect(state.keepaliveTick(now: at(29), interval: Self.interval) == .ping)
    #expect(state.keepaliveTick(now: at(30), interval: Self.interval) == .drop)
  }

  @Test func anyInputAnswersThePing() {
    var state = WebSocketSessionState(echo: true, now: at(0))
    #expect(state.keepaliveTick(now: at(20), interval: Self.interval) == .ping)
    let heard = state.heard(at: at(25))
    #expect(heard)
    #expect(state == .echoing(.heard(at(25))))
    #expect(state.keepaliveTick(now: at(35), interval: Self.interval) == .none)
    #expect(state.keepaliveTick(now: at(40), interval: Self.interval) == .ping)
    #expect(state.keepaliveTick(now: at(55), interval: Self.interval) == .drop)
  }

  @Test func namingKeepsTheLiveness() {
    var state = WebSocketSessionState(echo: false, now: at(0))
    _ = state.join()
    _ = state.keepaliveTick(now: at(16), interval: Self.interval)
    _ = state.name()
    #expect(state == .named(.pinged(lastHeard: at(0))))
  }
}
