import SwitchboardDNS
import SwitchboardIO
import SwitchboardTestSupport
import Testing

@testable import SwitchboardDiscovery

/// `switchboard peer`'s behaviour on a manual clock: lines to peers, the queue before the
/// first peer, the drain after the end of input, datagrams named by their sender.
@Suite(.onTestThreads) struct PeerSessionTests {
  typealias T = PeerTableTests
  static let start = Deadline(nanoseconds: 1_000_000_000)

  static func at(_ seconds: Double) -> Deadline { start.adding(.milliseconds(Int64(seconds * 1000))) }

  static func sends(_ actions: [PeerSessionAction]) -> [(String, [String])] {
    actions.compactMap {
      if case .send(let bytes, let peers) = $0 {
        (String(decoding: bytes, as: UTF8.self), peers.map(\.name))
      } else {
        nil
      }
    }
  }

  static func lines(_ actions: [PeerSessionAction]) -> [String] { actions.compactMap { $0.outputLine() } }

  @Test func aLineGoesAsOneDatagramWithoutNewlineToEveryPeer() {
    var session = PeerSession(ownName: "alice", type: T.type)
    _ = session.browserEvent(.added(T.service("bob", v4: [DNSIPv4Address(10, 0, 0, 2)])), now: Self.start)
    _ = session.browserEvent(.added(T.service("carol", v4: [DNSIPv4Address(10, 0, 0, 3)])), now: Self.start)
    let actions = session.line("hello ☕", now: Self.start)
    #expect(actions == [.send(Array("hello ☕".utf8), to: session.table.peers)])
    #expect(session.table.peers.map(\.name) == ["bob", "carol"])
  }

  @Test func toSendsOnlyToThatPeer() {
    var session = PeerSession(ownName: "alice", type: T.type, configuration: .init(target: "Carol"))
    _ = session.browserEvent(.added(T.service("bob", v4: [DNSIPv4Address(10, 0, 0, 2)])), now: Self.start)
    #expect(session.line("for carol", now: Self.start) == [.queued(pending: 1)])
    let actions = session.browserEvent(
      .added(T.service("carol", v4: [DNSIPv4Address(10, 0, 0, 3)])), now: Self.start)
    #expect(Self.sends(actions).map(\.1) == [["carol"]])
    #expect(Self.sends(session.line("again", now: Self.start)).map(\.1) == [["carol"]])
  }

  @Test func linesBeforeAnyPeerWaitAndGoToTheFirstOneInOrder() {
    var session = PeerSession(ownName: "alice", type: T.type)
    #expect(session.line("one", now: Self.start) == [.queued(pending: 1)])
    #expect(session.line("two", now: Self.start) == [.queued(pending: 2)])
    let actions = session.browserEvent(.added(T.service("bob")), now: Self.start)
    #expect(Self.lines(actions) == ["+ bob (10.0.0.2:7000)"])
    #expect(Self.sends(actions).map(\.0) == ["one", "two"])
    #expect(session.pendingLines == 0)
  }

  @Test func theQueueIsBoundedAndDropsTheOldest() {
    var configuration = PeerSession.Configuration()
    configuration.maxPendingLines = 2
    var session = PeerSession(ownName: "alice", type: T.type, configuration: configuration)
    _ = session.line("1", now: Self.start)
    _ = session.line("2", now: Self.start)
    let actions = session.line("3", now: Self.start)
    #expect(actions.first == .refused("1", reason: "the queue is full (2 lines)"))
    #expect(session.pendingLines == 2)
  }

  @Test func aLineTooLongForOneDatagramIsRefused() {
    var configuration = PeerSession.Configuration()
    configuration.maxDatagramBytes = 8
    var session = PeerSession(ownName: "alice", type: T.type, configuration: configuration)
    _ = session.browserEvent(.added(T.service("bob")), now: Self.start)
    #expect(Self.sends(session.line("12345678", now: Self.start)).count == 1)
    #expect(
      session.line("123456789", now: Self.start) == [.refused("123456789", reason: "longer than 8 bytes")])
  }

  @Test func endOfInputWithNothingQueuedFinishesAtOnce() {
    var session = PeerSession(ownName: "alice", type: T.type)
    #expect(session.inputEnded(now: Self.start) == [.finish(unsent: 0)])
    #expect(session.state == .finished)
    #expect(session.line("late", now: Self.start).isEmpty)
    #expect(session.inputEnded(now: Self.start).isEmpty)
  }

  @Test func endOfInputDrainsTheQueueToAPeerThatAppearsInTime() {
    var session = PeerSession(ownName: "alice", type: T.type)
    _ = session.line("waiting", now: Self.start)
    #expect(session.inputEnded(now: Self.start) == [.scheduleTimer(at: Self.at(10))])
    #expect(session.state == .draining(until: Self.at(10)))
    let actions = session.browserEvent(.added(T.service("bob")), now: Self.at(3))
    #expect(Self.sends(actions).map(\.0) == ["waiting"])
    #expect(actions.last == .finish(unsent: 0))
    #expect(session.state == .finished)
  }

  @Test func endOfInputGivesUpAfterTheDrainTimeoutAndCountsTheUnsent() {
    var configuration = PeerSession.Configuration()
    configuration.drainTimeout = .seconds(2)
    var session = PeerSession(ownName: "alice", type: T.type, configuration: configuration)
    _ = session.line("a", now: Self.start)
    _ = session.line("b", now: Self.start)
    #expect(session.inputEnded(now: Self.start) == [.scheduleTimer(at: Self.at(2))])
    #expect(session.timerFired(now: Self.at(1.9)) == [.scheduleTimer(at: Self.at(2))])  // early: asks again
    #expect(session.timerFired(now: Self.at(2)) == [.finish(unsent: 2)])
  }

  @Test func aSignalStopsAtOnceWithoutSendingTheQueue() {
    var session = PeerSession(ownName: "alice", type: T.type)
    _ = session.line("a", now: Self.start)
    #expect(session.stop() == [.refused("a", reason: "stopped before a peer appeared"), .finish(unsent: 0)])
    #expect(session.stop().isEmpty)
    #expect(session.browserEvent(.added(T.service("bob")), now: Self.start).isEmpty)
  }

  @Test func aDatagramFromAPeersAddressIsPrintedWithItsName() {
    var session = PeerSession(ownName: "alice", type: T.type)
    _ = session.browserEvent(.added(T.service("bob", port: 7001)), now: Self.start)
    let actions = session.datagram(Array("hi".utf8), from: T.address("10.0.0.2", 7001), now: Self.start)
    #expect(Self.lines(actions) == ["bob: hi"])
  }

  @Test func aDatagramFromAnUnknownSenderWaitsForItsPeerToResolve() {
    // bob found us and sent before we had resolved bob.
    var session = PeerSession(ownName: "alice", type: T.type)
    let early = session.datagram(Array("first".utf8), from: T.address("10.0.0.2", 7001), now: Self.start)
    #expect(early == [.scheduleTimer(at: Self.at(1))])
    let later = session.datagram(Array("second".utf8), from: T.address("10.0.0.2", 7001), now: Self.at(0.2))
    #expect(later.isEmpty)
    let actions = session.browserEvent(.added(T.service("bob", port: 7001)), now: Self.at(0.5))
    #expect(Self.lines(actions) == ["+ bob (10.0.0.2:7001)", "bob: first", "bob: second"])
  }

  @Test func aDatagramNoPeerClaimsIsPrintedWithItsAddressAfterTheGrace() {
    // Seed 003's iPhone sends from an NWConnection's ephemeral port.
    var session = PeerSession(ownName: "alice", type: T.type)
    _ = session.browserEvent(.added(T.service("iPhone", port: 7611)), now: Self.start)
    let sender = T.address("10.0.0.2", 53211)
    #expect(
      session.datagram(Array("hoge".utf8), from: sender, now: Self.start) == [.scheduleTimer(at: Self.at(1))])
    // A datagram from a known peer waits behind it, so the order stays as received.
    #expect(session.datagram(Array("bob".utf8), from: T.address("10.0.0.2", 7611), now: Self.at(0.1)).isEmpty)
    #expect(session.timerFired(now: Self.at(0.5)) == [.scheduleTimer(at: Self.at(1))])
    let actions = session.timerFired(now: Self.at(1))
    #expect(Self.lines(actions) == ["10.0.0.2:53211: hoge", "iPhone: bob"])
  }

  @Test func heldDatagramsArePrintedBeforeTheSessionFinishes() {
    var session = PeerSession(ownName: "alice", type: T.type)
    _ = session.datagram(Array("last words".utf8), from: T.address("10.0.0.9", 5000), now: Self.start)
    #expect(Self.lines(session.inputEnded(now: Self.start)) == ["10.0.0.9:5000: last words"])
    #expect(session.state == .finished)
  }

  @Test func theDrainTimerAndTheGraceTimerShareOneTimer() {
    var configuration = PeerSession.Configuration()
    configuration.drainTimeout = .milliseconds(500)
    var session = PeerSession(ownName: "alice", type: T.type, configuration: configuration)
    _ = session.line("queued", now: Self.start)
    _ = session.datagram(Array("x".utf8), from: T.address("10.0.0.9", 5000), now: Self.start)
    #expect(session.inputEnded(now: Self.start) == [.scheduleTimer(at: Self.at(0.5))])
    let actions = session.timerFired(now: Self.at(0.5))
    #expect(Self.lines(actions) == ["10.0.0.9:5000: x"])
    #expect(actions.last == .finish(unsent: 1))
  }

  @Test(arguments: [
    ("plain", "plain"), ("two\nlines", "two\\nlines"), ("cr\r", "cr\\r"), ("tab\there", "tab\there"),
    ("bell\u{07}", "bell\\u{7}"), ("☕", "☕"),
  ])
  func aDatagramPrintsAsOneLine(input: String, shown: String) {
    #expect(PeerSession.displayText(Array(input.utf8)) == shown)
  }

  @Test func anyDatagramPrintsAsOneLineWithoutControlCharacters() {
    // 2,000 seeded random datagrams (0–300 bytes, biased towards control and UTF-8 lead bytes).
    var random = SeededGenerator(seed: 0x5EED_0003)
    let interesting: [UInt8] = [0x00, 0x07, 0x0A, 0x0D, 0x1B, 0x7F, 0xC3, 0xE2, 0xF0, 0xFF, 0x80, 0xBF]
    for _ in 0..<2_000 {
      let count = Int.random(in: 0...300, using: &random)
      let bytes = (0..<count).map { _ in
        Bool.random(using: &random)
          ? interesting.randomElement(using: &random)! : UInt8.random(in: 0...255, using: &random)
      }
      let text = PeerSession.displayText(bytes)
      let control = text.unicodeScalars.first { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }
      #expect(control == nil, "\(bytes)")
    }
  }

  @Test func invalidUTF8IsShownWithReplacementCharacters() {
    #expect(PeerSession.displayText([0x68, 0xFF, 0x69]) == "h\u{FFFD}i")
  }

  @Test func outputLinesUseScopedIPv6AddressesWithTheInterfaceName() {
    var table = PeerTable(ownName: "alice", type: T.type)
    _ = table.apply(.added(T.service("bob", port: 7001, v4: [], v6: ["fe80::b"], interface: 4)))
    let peer = table.peers[0]
    #expect(
      PeerSessionAction.peerAppeared(peer).outputLine { $0 == 4 ? "eth0" : "?" }
        == "+ bob ([fe80::b%eth0]:7001)")
    #expect(PeerSessionAction.peerLeft("bob").outputLine() == "- bob")
    #expect(
      PeerSessionAction.received("hi", peer: nil, sender: T.address("2001:db8::1", 9)).outputLine()
        == "[2001:db8::1]:9: hi")
  }
}
