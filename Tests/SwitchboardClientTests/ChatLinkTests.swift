import SwitchboardTestSupport
import Testing

@testable import SwitchboardClient

/// A connection that carries nothing: for driving a ``ChatClientState`` by hand.
struct IdleTransportConnection: ChatTransportConnection {
  var inputs: AsyncStream<ChatTransportInput> { AsyncStream { $0.finish() } }
  var headers: [ChatClient.Header] { [] }
  func send(_ text: String) async throws(ChatClientError) {}
  func probe() async {}
  func close() {}
}

extension ChatOpenConnection {
  /// An open connection over ``IdleTransportConnection``.
  static func idle(probeRepliesExpected: Int = 0) -> ChatOpenConnection {
    ChatOpenConnection(
      transport: IdleTransportConnection(), kick: nil, liveness: .heard(at: .now),
      probeRepliesExpected: probeRepliesExpected)
  }
}

/// ``ChatLink``: the client's connection is one value whose transitions check where they start
/// from; an illegal one is refused and changes nothing.
@Suite(.onTestThreads)
struct ChatLinkTests {
  private static func name(_ link: ChatLink) -> String {
    switch link {
    case .none: "none"
    case .handshaking: "handshaking"
    case .ready: "ready"
    case .refused: "refused"
    }
  }

  @Test func aWebSocketConnectionIsReadyOnlyOnceAnswered() {
    var link = ChatLink.none
    let opened = link.opened(IdleTransportConnection())
    #expect(opened)
    let (_, kick) = AsyncStream.makeStream(of: Void.self)
    let readyAtOnce = link.served(kick: kick, answersConnect: true)
    #expect(!readyAtOnce)
    #expect(Self.name(link) == "handshaking" && !link.isReady && link.kick == nil)
    let answered = link.answered()
    #expect(answered)
    #expect(link.isReady && link.kick != nil)
    let lost = link.lost()
    #expect(lost)
    #expect(Self.name(link) == "none" && link.transport == nil)
  }

  @Test func aLineConnectionIsReadyWhenServed() {
    var link = ChatLink.none
    link.opened(IdleTransportConnection())
    let (_, kick) = AsyncStream.makeStream(of: Void.self)
    let readyAtOnce = link.served(kick: kick, answersConnect: false)
    #expect(readyAtOnce)
    #expect(link.isReady)
  }

  @Test func illegalTransitionsAreRefusedAndChangeNothing() {
    var link = ChatLink.none
    let answered = link.answered()
    #expect(!answered)
    let lost = link.lost()
    #expect(!lost)
    let (_, kick) = AsyncStream.makeStream(of: Void.self)
    let served = link.served(kick: kick, answersConnect: false)
    #expect(!served)
    #expect(Self.name(link) == "none")
    link.opened(IdleTransportConnection())
    link.answered()
    // A second connection cannot be opened over a ready one, nor served or answered again.
    let openedAgain = link.opened(IdleTransportConnection())
    #expect(!openedAgain)
    let servedAgain = link.served(kick: kick, answersConnect: true)
    #expect(!servedAgain)
    let answeredAgain = link.answered()
    #expect(!answeredAgain)
    #expect(Self.name(link) == "ready")
    // Refused is final: nothing opens, nothing is lost, the first reason stays.
    let refused = link.refuse(ChatRefusal(kind: .authentication, reason: "authentication required"))
    #expect(refused)
    let refusedAgain = link.refuse(ChatRefusal(kind: .room, reason: "other"))
    #expect(!refusedAgain)
    let openedWhenRefused = link.opened(IdleTransportConnection())
    #expect(!openedWhenRefused)
    let lostWhenRefused = link.lost()
    #expect(!lostWhenRefused)
    #expect(link.refusal?.reason == "authentication required")
  }

  @Test func theHeartbeatProbesThenLosesViabilityThenDeclaresDeath() {
    let start = ContinuousClock.now
    let heartbeat = ChatClient.Heartbeat(interval: .seconds(10), timeout: .seconds(4))
    var link = ChatLink.none
    link.opened(IdleTransportConnection(), at: start)
    let at5s = link.heartbeatTick(heartbeat, now: start + .seconds(5), countsProbeReplies: true)
    #expect(at5s == .none)
    let at10s = link.heartbeatTick(heartbeat, now: start + .seconds(10), countsProbeReplies: true)
    #expect(at10s == .probe)
    #expect(link.open?.probeRepliesExpected == 1)
    let at11s = link.heartbeatTick(heartbeat, now: start + .seconds(11), countsProbeReplies: true)
    #expect(at11s == .none)
    let at12s = link.heartbeatTick(heartbeat, now: start + .seconds(12), countsProbeReplies: true)
    #expect(at12s == .notViable)
    #expect(!link.isViable)
    let viableAgain = link.heard(at: start + .seconds(13))
    #expect(viableAgain)  // viable again: reported
    let viableAgainTwice = link.heard(at: start + .seconds(13))
    #expect(!viableAgainTwice)  // already viable: nothing to report
    let probeReply = link.takeProbeReply()
    let secondProbeReply = link.takeProbeReply()
    #expect(probeReply && !secondProbeReply)
    // A late tick past the whole timeout reports both.
    let at23s = link.heartbeatTick(heartbeat, now: start + .seconds(23), countsProbeReplies: false)
    #expect(at23s == .probe)
    let at30s = link.heartbeatTick(heartbeat, now: start + .seconds(30), countsProbeReplies: false)
    #expect(at30s == .notViableAndDead)
    // Without a connection the heartbeat does nothing.
    link.lost()
    let withoutConnection = link.heartbeatTick(
      heartbeat, now: start + .seconds(60), countsProbeReplies: false)
    #expect(withoutConnection == .none)
  }

  @Test func theResumeStateResumesOnceAConnectIsAnsweredKeepingWhatItSaw() {
    var resume = ChatResumeState.fresh(lastID: nil, epoch: nil)
    resume.lastID = 7
    resume.epoch = "e1"
    #expect(!resume.isResuming)
    resume.answered()
    #expect(resume == .resuming(lastID: 7, epoch: "e1"))
    resume.lastID = 9
    #expect(resume == .resuming(lastID: 9, epoch: "e1"))
  }
}
