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
    let r1 = link.opened(IdleTransportConnection())
    #expect(r1)
    let (_, kick) = AsyncStream.makeStream(of: Void.self)
    let r2 = link.served(kick: kick, answersConnect: true)
    #expect(!r2)
    #expect(Self.name(link) == "handshaking" && !link.isReady && link.kick == nil)
    let r3 = link.answered()
    #expect(r3)
    #expect(link.isReady && link.kick != nil)
    let r4 = link.lost()
    #expect(r4)
    #expect(Self.name(link) == "none" && link.transport == nil)
  }

  @Test func aLineConnectionIsReadyWhenServed() {
    var link = ChatLink.none
    link.opened(IdleTransportConnection())
    let (_, kick) = AsyncStream.makeStream(of: Void.self)
    let r5 = link.served(kick: kick, answersConnect: false)
    #expect(r5)
    #expect(link.isReady)
  }

  @Test func illegalTransitionsAreRefusedAndChangeNothing() {
    var link = ChatLink.none
    let r6 = link.answered()
    #expect(!r6)
    let r7 = link.lost()
    #expect(!r7)
    let (_, kick) = AsyncStream.makeStream(of: Void.self)
    let r8 = link.served(kick: kick, answersConnect: false)
    #expect(!r8)
    #expect(Self.name(link) == "none")
    link.opened(IdleTransportConnection())
    link.answered()
    // A second connection cannot be opened over a ready one, nor served or answered again.
    let r9 = link.opened(IdleTransportConnection())
    #expect(!r9)
    let r10 = link.served(kick: kick, answersConnect: true)
    #expect(!r10)
    let r11 = link.answered()
    #expect(!r11)
    #expect(Self.name(link) == "ready")
    // Refused is final: nothing opens, nothing is lost, the first reason stays.
    let r12 = link.refuse(ChatRefusal(kind: .authentication, reason: "authentication required"))
    #expect(r12)
    let r13 = link.refuse(ChatRefusal(kind: .room, reason: "other"))
    #expect(!r13)
    let r14 = link.opened(IdleTransportConnection())
    #expect(!r14)
    let r15 = link.lost()
    #expect(!r15)
    #expect(link.refusal?.reason == "authentication required")
  }

  @Test func theHeartbeatProbesThenLosesViabilityThenDeclaresDeath() {
    let start = ContinuousClock.now
    let heartbeat = ChatClient.Heartbeat(interval: .seconds(10), timeout: .seconds(4))
    var link = ChatLink.none
    link.opened(IdleTransportConnection(), at: start)
    let r16 = link.heartbeatTick(heartbeat, now: start + .seconds(5), countsProbeReplies: true)
    #expect(r16 == .none)
    let r17 = link.heartbeatTick(heartbeat, now: start + .seconds(10), countsProbeReplies: true)
    #expect(r17 == .probe)
    #expect(link.open?.probeRepliesExpected == 1)
    let r18 = link.heartbeatTick(heartbeat, now: start + .seconds(11), countsProbeReplies: true)
    #expect(r18 == .none)
    let r19 = link.heartbeatTick(heartbeat, now: start + .seconds(12), countsProbeReplies: true)
    #expect(r19 == .notViable)
    #expect(!link.isViable)
    let r20 = link.heard(at: start + .seconds(13))
    #expect(r20)  // viable again: reported
    let r21 = link.heard(at: start + .seconds(13))
    #expect(!r21)  // already viable: nothing to report
    let r22 = link.takeProbeReply()
    let r23 = link.takeProbeReply()
    #expect(r22 && !r23)
    // A late tick past the whole timeout reports both.
    let r24 = link.heartbeatTick(heartbeat, now: start + .seconds(23), countsProbeReplies: false)
    #expect(r24 == .probe)
    let r25 = link.heartbeatTick(heartbeat, now: start + .seconds(30), countsProbeReplies: false)
    #expect(r25 == .notViableAndDead)
    // Without a connection the heartbeat does nothing.
    link.lost()
    let r26 = link.heartbeatTick(heartbeat, now: start + .seconds(60), countsProbeReplies: false)
    #expect(r26 == .none)
  }
}
