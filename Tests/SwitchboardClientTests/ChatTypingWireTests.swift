import SwitchboardTestSupport
import Testing

@testable import SwitchboardClient

/// Feature negotiation and typing indicators, client side, without sockets: the frames and
/// lines the client writes, what it makes of the server's answers (an older server's
/// refusal included), and the once-a-second throttle.
@Suite(.onTestThreads) struct ChatTypingWireTests {
  private func receive(_ state: inout ChatClientState, _ text: String) -> [ChatClient.Event] {
    var events: [ChatClient.Event] = []
    var resumes: [ChatResume] = []
    _ = state.receive(text, events: &events, resumes: &resumes)
    return events
  }

  private func connected(_ scheme: ChatEndpoint.Scheme, features: Set<ChatClient.Feature> = [.typing])
    -> ChatClientState
  {
    var state = ChatClientState(scheme: scheme, me: "ada", room: "dev", features: features)
    state.link = .ready(.idle())
    state.typing.connected()
    return state
  }

  @Test func theClientAsksForItsFeaturesOnlyWhenConfigured() {
    #expect(ChatWire.featuresFrame([.typing]) == #"{"type":"features","data":["typing"]}"#)
    #expect(ChatWire.typingFrame(active: true) == #"{"type":"typing","data":{"active":true}}"#)
    #expect(ChatWire.typingFrame(active: false) == #"{"type":"typing","data":{"active":false}}"#)
    #expect(connected(.ws).typing.webSocketHello == #"{"type":"features","data":["typing"]}"#)
    #expect(connected(.ws, features: []).typing.webSocketHello == nil)
    #expect(connected(.tcp).typing.helloLines == ["/typing on"])
    #expect(connected(.tcp, features: []).typing.helloLines.isEmpty)
    #expect(connected(.udp).typing.helloLines.isEmpty && connected(.udp).typing.webSocketHello == nil)
  }

  @Test func aFeaturesAnswerIsAnEventAndTheServersFeatures() {
    var state = connected(.ws)
    let events = receive(
      &state, #"{"type":"features","data":{"version":2,"supported":["typing","dm"],"enabled":["typing"]}}"#)
    let expected = ChatClient.ServerFeatures(
      version: 2, supported: [.typing, ChatClient.Feature(rawValue: "dm")], enabled: [.typing])
    guard case .features(let features)? = events.first, events.count == 1 else {
      Issue.record("\(events)")
      return
    }
    #expect(features == expected)
    #expect(state.typing.serverFeatures == expected && state.typing.serverSpeaksTyping)
  }

  /// An older server answers the `features` frame with `unknown_type`: that reads as a
  /// server that speaks none, not as an error event; a later `unknown_type` is an error again.
  @Test func anOlderServersUnknownTypeMeansNoFeaturesNotAFailure() {
    var state = connected(.ws)
    let unknown = #"{"type":"error","data":{"code":"unknown_type","message":"unknown type \"features\""}}"#
    let events = receive(&state, unknown)
    guard case .features(let features)? = events.first, events.count == 1 else {
      Issue.record("\(events)")
      return
    }
    #expect(features == .none && features.version == nil)
    #expect(!state.typing.serverSpeaksTyping)
    // Nothing is written for typing toward it.
    let kick = state.setTyping(true, now: .now)
    let signalled = state.typing.set(true, now: .now)
    #expect(kick == nil && !signalled)
    if case .error(let error)? = receive(&state, unknown).first {
      #expect(error == .serverError)
    } else {
      Issue.record("a later unknown_type is an error")
    }
  }

  @Test func typingFramesAreEvents() {
    var state = connected(.ws)
    let events = receive(&state, #"{"type":"typing","data":{"room":"dev","author":"bob","active":true}}"#)
    guard case .typing(let room, let author, let active)? = events.first else {
      Issue.record("\(events)")
      return
    }
    #expect(room == "dev" && author == "bob" && active)
    // Malformed ones are nothing.
    #expect(receive(&state, #"{"type":"typing","data":{"room":"dev","active":true}}"#).isEmpty)
    #expect(receive(&state, #"{"type":"typing","data":{"author":"bob"}}"#).isEmpty)
    #expect(receive(&state, #"{"type":"typing","data":"x"}"#).isEmpty)
  }

  @Test func aTypingSignalLeavesAtMostOnceASecondAndStopsOnce() {
    var state = connected(.ws)
    _ = receive(
      &state, #"{"type":"features","data":{"version":2,"supported":["typing"],"enabled":["typing"]}}"#)
    let t0 = ContinuousClock.now
    let sent1 = state.typing.set(true, now: t0)
    #expect(sent1)
    #expect(state.typing.takeWire() == #"{"type":"typing","data":{"active":true}}"#)
    let sent2 = state.typing.set(true, now: t0 + .milliseconds(300))
    #expect(!sent2)
    let sent3 = state.typing.set(true, now: t0 + .milliseconds(999))
    #expect(!sent3)
    #expect(state.typing.takeWire() == nil)
    let sent4 = state.typing.set(true, now: t0 + .seconds(1))
    #expect(sent4)
    #expect(state.typing.takeWire() == #"{"type":"typing","data":{"active":true}}"#)
    let sent5 = state.typing.set(false, now: t0 + .seconds(2))
    #expect(sent5)
    #expect(state.typing.takeWire() == #"{"type":"typing","data":{"active":false}}"#)
    let sent6 = state.typing.set(false, now: t0 + .seconds(3))
    #expect(!sent6)
    // A stop or a message does not restart the second (the server counts from its last
    // start): a keystroke within it is not sent, the first one after it is.
    let sent7 = state.typing.set(true, now: t0 + .seconds(4))
    #expect(sent7)
    _ = state.typing.takeWire()
    state.typing.messageSent()
    let sent8 = state.typing.set(true, now: t0 + .seconds(4) + .milliseconds(10))
    #expect(!sent8 && state.typing.takeWire() == nil)
    let sent9 = state.typing.set(false, now: t0 + .seconds(4) + .milliseconds(20))
    #expect(sent9)
    _ = state.typing.takeWire()
    let sent10 = state.typing.set(true, now: t0 + .seconds(4) + .milliseconds(500))
    #expect(!sent10)
    let sent11 = state.typing.set(true, now: t0 + .seconds(5))
    #expect(sent11 && state.typing.takeWire() == #"{"type":"typing","data":{"active":true}}"#)
  }

  /// The line dialect: `/typing on` answered `* typing notices on`, then `* NAME is typing`
  /// is a typing event; `/typing` signals (no stop); an older server's `! unknown command`
  /// is no features, not an error.
  @Test func theLineDialectNegotiatesAndReportsStarts() {
    var state = connected(.tcp)
    #expect(receive(&state, "* bob is typing").map(\.noticeText) == ["* bob is typing"])
    let on = receive(&state, "* typing notices on")
    guard case .features(let features)? = on.first else {
      Issue.record("\(on)")
      return
    }
    #expect(features.enabled == [.typing])
    guard case .typing(let room, let author, let active)? = receive(&state, "* bob smith is typing").first
    else {
      Issue.record("not a typing event")
      return
    }
    #expect(room == "dev" && author == "bob smith" && active)
    let sent9 = state.typing.set(true, now: .now)
    #expect(sent9 && state.typing.takeWire() == "/typing")
    let sent10 = state.typing.set(false, now: .now)
    #expect(!sent10 && state.typing.takeWire() == nil)

    var old = connected(.tcp)
    let refused = receive(&old, "! unknown command /typing (try /help)")
    if case .features(let none)? = refused.first {
      #expect(none == .none)
    } else {
      Issue.record("\(refused)")
    }
    let sent11 = old.typing.set(true, now: .now)
    #expect(!sent11)
  }

  @Test func udpNeverTypes() {
    var state = connected(.udp)
    state.typing.negotiation = .answered(.init(supported: [.typing], enabled: [.typing]))
    let sent12 = state.typing.set(true, now: .now)
    #expect(!sent12 && state.typing.takeWire() == nil)
  }
}

extension ChatClient.Event {
  fileprivate var noticeText: String? { if case .notice(let text) = self { text } else { nil } }
}
