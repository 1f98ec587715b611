import SwitchboardChat
import SwitchboardTestSupport
import Testing

/// A member's typing state as a pure value (TypingState.swift): the one-a-second limit,
/// the stop that is never dropped, the end on a message, and the expiry a later start moves.
@Suite(.onTestThreads)
struct TypingStateTests {
  @Test func startsAreLimitedToOneASecondAndStopsEndOnlyAShownStart() {
    var state = TypingState()
    #expect(state.signal(active: false, now: 0) == .none)
    #expect(state.signal(active: true, now: 1_000) == .relay(active: true, expiresAt: 6_000))
    #expect(state.signal(active: true, now: 1_999) == .dropped)
    #expect(state.isActive)
    #expect(state.signal(active: false, now: 2_100) == .relay(active: false, expiresAt: nil))
    #expect(state.signal(active: false, now: 2_200) == .none)
    // A start within the second after the last relayed one is dropped, even after a stop.
    #expect(state.signal(active: true, now: 1_500) == .dropped)
    #expect(state.signal(active: true, now: 2_000) == .relay(active: true, expiresAt: 7_000))
    #expect(state.end() == .relay(active: false, expiresAt: nil))
    #expect(state.end() == .none)
  }

  @Test func theExpiryEndsOnlyAStartThatOld() {
    var state = TypingState()
    _ = state.signal(active: true, now: 0)
    _ = state.signal(active: true, now: 3_000)  // moves the expiry to 8 s
    #expect(state.expire(now: 5_000) == .none)
    #expect(state.isActive)
    #expect(state.expire(now: 8_000) == .relay(active: false, expiresAt: nil))
    #expect(state.expire(now: 9_000) == .none)
    #expect(!state.isActive)
  }
}
