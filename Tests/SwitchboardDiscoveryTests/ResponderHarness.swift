import SwitchboardDNS
import SwitchboardDiscovery
import SwitchboardIO
import Testing

/// Drives an ``MDNSResponder`` on a manual clock and keeps everything it did.
struct ResponderHarness {
  static let interface = MDNSInterface(
    index: 7, name: "veth-test", ipv4: [DNSIPv4Address(10, 9, 8, 1)], ipv6: [DNSIPv6Address("fe80::1")!],
    subnets: [MDNSSubnet(address: [10, 9, 8, 1], prefixLength: 24)!])
  static let peer = try! SocketAddress(host: "10.9.8.2", port: 5353)

  var responder: MDNSResponder
  var now = Deadline(nanoseconds: 5_000_000_000)
  var timer: Deadline?
  /// The responder's packet size limit: nothing bigger is sent unless it is one record.
  let maxMessageSize: Int
  /// Every action with the time it was returned.
  var log: [(at: Deadline, action: MDNSResponderAction)] = []

  init(
    hostName: String = "sbtest", seed: UInt64 = 1,
    configure: (inout MDNSResponderConfiguration) -> Void = { _ in }
  ) {
    var configuration = MDNSResponderConfiguration(
      hostName: hostName, interfaces: [Self.interface], randomSeed: seed)
    configure(&configuration)
    maxMessageSize = configuration.maxMessageSize
    responder = try! MDNSResponder(configuration: configuration, now: now)
    timer = responder.nextDeadline
  }

  static func name(_ text: String) -> DNSName { try! DNSName(text) }

  mutating func take(_ actions: [MDNSResponderAction]) {
    for action in actions {
      if case .scheduleTimer(let at) = action { timer = at }
      if case .send(let message, _) = action {
        // Everything sent must survive the wire.
        let bytes = message.encode()
        precondition((try? DNSMessage(decoding: bytes)) == message, "does not round-trip: \(message)")
        // Nothing bigger than a packet, except what cannot be cut (RFC 6762 §17): one record,
        // or one name's probe (its question and proposed records go together).
        let records = message.answers.count + message.authorities.count + message.additionals.count
        let oneProbe = message.questions.count == 1 && message.answers.isEmpty && !message.authorities.isEmpty
        if bytes.count > maxMessageSize && records > 1 && !oneProbe {
          Issue.record("\(bytes.count) bytes: \(message)")
        }
      }
      log.append((now, action))
    }
  }

  @discardableResult
  mutating func register(
    _ instance: String, _ type: String = "_switchboard._tcp", port: UInt16 = 7000, txt: [String] = []
  )
    -> MDNSServiceID
  {
    let service = MDNSService(instance: instance, type: type, port: port, txt: try! DNSTXT(strings: txt))
    let (id, actions) = try! responder.register(service, now: now)
    take(actions)
    return id
  }

  mutating func advance(by duration: Duration) {
    let end = now.adding(duration)
    while let due = timer, due <= end {
      now = max(now, due)
      timer = nil
      take(responder.timerFired(now: now))
    }
    now = end
  }

  mutating func receive(_ message: DNSMessage, from source: SocketAddress = peer) {
    take(responder.receive(message, from: source, interface: Self.interface.index, now: now))
  }

  /// Runs probing and announcing to the end.
  mutating func settle() { advance(by: .seconds(6)) }

  /// Forgets what was logged so far.
  mutating func clear() { log.removeAll() }

  var sent: [(at: Deadline, message: DNSMessage, to: MDNSDestination)] {
    log.compactMap { entry in
      if case .send(let message, let to) = entry.action { return (entry.at, message, to) }
      return nil
    }
  }

  var probes: [(at: Deadline, message: DNSMessage)] {
    sent.filter { !$0.message.flags.isResponse && !$0.message.authorities.isEmpty }.map {
      ($0.at, $0.message)
    }
  }

  var responses: [(at: Deadline, message: DNSMessage, to: MDNSDestination)] {
    sent.filter { $0.message.flags.isResponse }
  }

  var renames: [(MDNSServiceID?, String, String)] {
    log.compactMap { entry in
      if case .renamed(let id, let from, let to) = entry.action { return (id, from, to) }
      return nil
    }
  }

  static func query(
    _ name: String, _ type: DNSRecordType, qu: Bool = false, known: [DNSRecord] = [], id: UInt16 = 0
  )
    -> DNSMessage
  {
    DNSMessage(
      id: id, questions: [DNSQuestion(name: Self.name(name), type: type, unicastResponse: qu)], answers: known
    )
  }
}

extension Deadline {
  func milliseconds(since earlier: Deadline) -> Int64 {
    (Int64(nanoseconds) - Int64(earlier.nanoseconds)) / 1_000_000
  }
}
