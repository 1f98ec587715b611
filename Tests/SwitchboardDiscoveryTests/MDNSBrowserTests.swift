import SwitchboardTestSupport
import SwitchboardDNS
import SwitchboardIO
import Testing

@testable import SwitchboardDiscovery

/// The browser state machine on a manual clock (RFC 6762 §5.2, §7.1, §10; RFC 6763 §12).
@Suite(.onTestThreads) struct MDNSBrowserTests {
  typealias H = ResponderHarness
  static let type = H.name("_switchboard._tcp.local")
  static let instance = H.name("Chat._switchboard._tcp.local")
  static let host = H.name("peer.local")

  struct Driver {
    var browser: MDNSBrowser
    var now = Deadline(nanoseconds: 5_000_000_000)
    var timer: Deadline?
    var sent: [(at: Deadline, message: DNSMessage)] = []
    var events: [MDNSBrowserEvent] = []

    init() {
      browser = try! MDNSBrowser(
        types: ["_switchboard._tcp"], interfaces: [H.interface], now: now, randomSeed: 3)
      timer = browser.nextDeadline
    }

    mutating func take(_ actions: [MDNSBrowserAction]) {
      for action in actions {
        switch action {
        case .send(let message, _): sent.append((now, message))
        case .scheduleTimer(let at): timer = at
        case .event(let event): events.append(event)
        }
      }
    }

    mutating func advance(by duration: Duration) {
      let end = now.adding(duration)
      while let due = timer, due <= end {
        now = max(now, due)
        timer = nil
        take(browser.timerFired(now: now))
      }
      now = end
    }

    mutating func receive(_ records: [DNSRecord]) {
      take(
        browser.receive(
          DNSMessage(flags: .authoritativeResponse, answers: records), from: H.peer, interface: 7, now: now))
    }
  }

  static let ptr = DNSRecord(name: type, ttl: 4500, rdata: .ptr(instance))
  static let srv = DNSRecord(
    name: instance, ttl: 120, rdata: .srv(priority: 0, weight: 0, port: 7100, target: host), cacheFlush: true)
  static let txt = DNSRecord(
    name: instance, ttl: 4500, rdata: .txt(try! DNSTXT(strings: ["k=v"])), cacheFlush: true)
  static let a = DNSRecord(name: host, ttl: 120, rdata: .a(DNSIPv4Address(10, 9, 8, 2)), cacheFlush: true)

  @Test func queriesBackOffFromOneSecondDoubling() {
    var d = Driver()
    d.advance(by: .seconds(40))
    let times = d.sent.filter { $0.message.questions.first?.type == .ptr }.map(\.at)
    let gaps = zip(times, times.dropFirst()).map { $1.milliseconds(since: $0) }
    #expect(gaps == [1000, 2000, 4000, 8000, 16000])
    #expect(d.sent.first!.message.questions == [DNSQuestion(name: Self.type, type: .ptr)])
  }

  @Test func aResolvedInstanceIsAddedAndKnownAnswersGoInTheNextQuery() throws {
    var d = Driver()
    d.advance(by: .milliseconds(200))
    d.receive([Self.ptr, Self.srv, Self.txt, Self.a])
    let added = try #require(d.events.first)
    guard case .added(let service) = added else {
      Issue.record("\(added)")
      return
    }
    #expect(service.instance == "Chat" && service.host == "peer.local" && service.port == 7100)
    #expect(
      service.ipv4 == [DNSIPv4Address(10, 9, 8, 2)] && service.txt.entries.map(\.description) == ["k=v"])
    d.sent = []
    d.advance(by: .seconds(2))
    let query = try #require(d.sent.first { $0.message.questions.first?.type == .ptr })
    #expect(query.message.answers.map(\.rdata) == [.ptr(Self.instance)])
  }

  @Test func aPTRAloneMakesTheBrowserAskForSRVTXTAndAddresses() throws {
    var d = Driver()
    d.advance(by: .milliseconds(200))
    d.sent = []
    d.receive([Self.ptr])
    let ask = try #require(d.sent.first)
    #expect(Set(ask.message.questions.map(\.type)) == [.srv, .txt])
    d.receive([Self.srv])
    d.advance(by: .seconds(2))  // the next query's timer, a second after the first ask
    #expect(d.sent.contains { $0.message.questions.contains { $0.name == Self.host && $0.type == .a } })
    d.receive([Self.txt, Self.a])
    #expect(d.events.count == 1)
  }

  @Test func aGoodbyeRemovesTheInstanceOneSecondLater() {
    var d = Driver()
    d.receive([Self.ptr, Self.srv, Self.txt, Self.a])
    var bye = Self.ptr
    bye.ttl = 0
    d.receive([bye])
    d.advance(by: .milliseconds(900))
    #expect(d.events.count == 1)
    d.advance(by: .milliseconds(200))
    #expect(d.events.last == .removed(instance: "Chat", type: "_switchboard._tcp", interface: 7))
  }

  @Test func aCacheFlushRecordReplacesOlderOnesAfterOneSecondAndUpdates() throws {
    var d = Driver()
    d.receive([Self.ptr, Self.srv, Self.txt, Self.a])
    d.advance(by: .seconds(2))
    let moved = DNSRecord(name: Self.host, ttl: 120, rdata: .a(DNSIPv4Address(10, 9, 8, 9)), cacheFlush: true)
    d.receive([moved])
    guard case .updated(let both) = d.events.last else {
      Issue.record("\(d.events)")
      return
    }
    #expect(both.ipv4.count == 2)  // the old address still has its second of grace
    d.advance(by: .milliseconds(1100))
    guard case .updated(let one) = d.events.last else {
      Issue.record("\(d.events)")
      return
    }
    #expect(one.ipv4 == [DNSIPv4Address(10, 9, 8, 9)])
  }

  // MARK: Refresh queries (§5.2) and known answers over several packets (§7.2)

  /// When `d` asked a question for `name` and `type`.
  static func asked(_ d: Driver, _ name: DNSName, _ type: DNSRecordType) -> [Deadline] {
    d.sent.filter { $0.message.questions.contains(DNSQuestion(name: name, type: type)) }.map(\.at)
  }

  static func withTTL(_ record: DNSRecord, _ ttl: UInt32) -> DNSRecord {
    var record = record
    record.ttl = ttl
    return record
  }

  @Test func followedRecordsAreAskedForAt80To95PercentOfTheirTTLThenExpire() throws {
    var d = Driver()
    d.advance(by: .milliseconds(200))
    d.receive([Self.withTTL(Self.ptr, 100), Self.withTTL(Self.srv, 100), Self.txt, Self.withTTL(Self.a, 100)])
    let received = d.now
    d.sent = []
    d.advance(by: .seconds(99))
    let windows = [80, 85, 90, 95].map { ($0 * 1000)...(($0 + 2) * 1000) }  // plus 0–2 % at random
    for (name, type) in [(Self.instance, DNSRecordType.srv), (Self.host, .a)] {
      let times = Self.asked(d, name, type).map { Int($0.milliseconds(since: received)) }
      #expect(times.count == 4 && zip(windows, times).allSatisfy { $0.contains($1) }, "\(type): \(times)")
    }
    // The PTR too (its type's own back-off queries come on top).
    let ptrTimes = Self.asked(d, Self.type, .ptr).map { Int($0.milliseconds(since: received)) }
    #expect(windows.allSatisfy { window in ptrTimes.contains { window.contains($0) } }, "\(ptrTimes)")
    // A question's record is no known answer: under half its TTL is left.
    #expect(!d.sent.contains { $0.message.answers.contains { $0.type == .srv || $0.type == .a } })
    // The TXT (TTL 4500) was not asked for yet.
    #expect(Self.asked(d, Self.instance, .txt).isEmpty)
    // Nobody answered: at 100 % the records are gone, and so is the instance.
    d.advance(by: .milliseconds(1100))
    #expect(!(d.browser.cache[7] ?? [:]).values.contains { [.srv, .a, .ptr].contains($0.record.type) })
    #expect(d.events.last == .removed(instance: "Chat", type: "_switchboard._tcp", interface: 7))
  }

  @Test func anAnswerToARefreshQueryStartsTheScheduleAgain() throws {
    var d = Driver()
    d.advance(by: .milliseconds(200))
    let srv = Self.withTTL(Self.srv, 100)
    d.receive([Self.ptr, srv, Self.txt, Self.withTTL(Self.a, 4500)])  // only the SRV is due
    d.advance(by: .seconds(83))
    #expect(Self.asked(d, Self.instance, .srv).count == 1)
    d.receive([srv])  // the responder answers the 80 % query
    let answered = d.now
    d.sent = []
    d.advance(by: .seconds(79))
    #expect(Self.asked(d, Self.instance, .srv).isEmpty)  // no 85, 90, 95 % of the old TTL
    d.advance(by: .seconds(4))
    let again = Self.asked(d, Self.instance, .srv).map { Int($0.milliseconds(since: answered)) }
    #expect(again.count == 1 && again.allSatisfy { (80_000...82_000).contains($0) }, "\(again)")
    #expect(d.events.count == 1)  // never lost
  }

  @Test func recordsNoFollowedInstanceNeedsAreNotRefreshed() {
    var d = Driver()
    d.advance(by: .milliseconds(200))
    let elsewhere = H.name("elsewhere.local")
    let address = DNSIPv4Address(10, 9, 8, 7)
    d.receive([DNSRecord(name: elsewhere, ttl: 100, rdata: .a(address), cacheFlush: true)])
    d.advance(by: .seconds(101))
    #expect(Self.asked(d, elsewhere, .a).isEmpty)
  }

  @Test func knownAnswersThatDoNotFitOnePacketContinueInPacketsWithTC() throws {
    var d = Driver()
    d.advance(by: .milliseconds(200))
    let ptrs = (0..<150).map { i in
      DNSRecord(
        name: Self.type, ttl: 4500, rdata: .ptr(H.name("instance number \(i)._switchboard._tcp.local")))
    }
    d.receive(ptrs)
    d.sent = []
    d.advance(by: .seconds(1))
    // The type's query: its question, then PTR known answers only.
    let series = d.sent.map(\.message).filter { message in
      message.questions == [DNSQuestion(name: Self.type, type: .ptr)]
        || (message.questions.isEmpty && message.answers.allSatisfy { $0.name == Self.type })
    }
    #expect(series.count >= 3)
    #expect(series.first?.questions.count == 1)
    #expect(series.dropLast().allSatisfy(\.flags.isTruncated) && series.last?.flags.isTruncated == false)
    #expect(series.allSatisfy { $0.encode().count <= MDNSPacketSplitter.defaultLimit })
    #expect(Set(series.flatMap(\.answers).map(\.rdata)) == Set(ptrs.map(\.rdata)))
    #expect(series.flatMap(\.answers).count == 150)
  }

  @Test func recordsExpireWithTheirTTL() {
    var d = Driver()
    var short = Self.ptr
    short.ttl = 3
    d.receive([short, Self.srv, Self.txt, Self.a])
    d.advance(by: .seconds(4))
    #expect(d.events.last == .removed(instance: "Chat", type: "_switchboard._tcp", interface: 7))
  }
}
