import SwitchboardIO

/// The behaviour of `switchboard peer` (seed 003's UDP peer mode) as a pure state machine:
/// browser events, renames, typed lines, arriving datagrams, the end of input and timer
/// ticks go in; ``PeerSessionAction``s — what to print, what to send where, when to wake up,
/// when to stop — come out. The command around it owns the UDP sockets, the advertiser and
/// the browser and carries the actions out.
///
/// A line goes, as one UTF-8 datagram without a newline, to every visible peer (or only to
/// the ``Configuration/target``). With nobody to send to yet it waits in a queue of at most
/// ``Configuration/maxPendingLines``; the first peer to appear gets the queue. After the end of
/// input the session drains: it finishes once the queue is empty, or when
/// ``Configuration/drainTimeout`` has passed, reporting how many lines nobody received.
///
/// A datagram is printed with the name of the peer whose address and port it came from.
/// Two peers usually find each other a moment apart, so the first datagram of a peer can
/// arrive before we have resolved it: one from an address no peer has waits up to
/// ``Configuration/unknownSenderGrace`` for a peer to resolve to it, then is printed with its
/// address (later datagrams wait behind it, so the order stays as received).
public struct PeerSession: Sendable {
  /// Limits and choices, each with a default.
  public struct Configuration: Sendable, Hashable {
    /// Send only to this peer (by instance name, ignoring ASCII case); `nil`: to every peer.
    public var target: String?
    /// Lines kept while there is nobody to send to; past it the oldest is dropped.
    public var maxPendingLines = 100
    /// The largest line sent (UTF-8 bytes): the most one IPv4 UDP datagram can carry.
    /// A longer line is refused, not split.
    public var maxDatagramBytes = 65_507
    /// How long queued lines may wait for a peer after the end of input.
    public var drainTimeout: Duration = .seconds(10)
    /// How long a datagram from an address no peer has waits for a peer to resolve to it.
    public var unknownSenderGrace: Duration = .seconds(1)
    /// Datagrams kept waiting at most; past it the oldest is printed at once.
    public var maxHeldDatagrams = 256

    /// The defaults, optionally for one target peer.
    public init(target: String? = nil) { self.target = target }
  }

  /// Where the session is. Transitions: `running → draining → finished` or
  /// `running → finished`; nothing leaves `finished`.
  public enum State: Sendable, Hashable {
    /// Reading input.
    case running
    /// Input ended; queued lines wait for a peer until the deadline.
    case draining(until: Deadline)
    /// Done; ``PeerSessionAction/finish(unsent:)`` was returned once.
    case finished
  }

  /// The peers.
  public private(set) var table: PeerTable
  /// The configuration.
  public let configuration: Configuration
  /// Where the session is.
  public private(set) var state = State.running
  private var pending: [String] = []
  private var held: [Held] = []
  private var scheduled: Deadline?

  /// A datagram waiting for its sender to be resolved.
  private struct Held: Sendable {
    var text: String
    var sender: SocketAddress
    var until: Deadline
  }

  /// A session for `type` in which `ownName` is us.
  public init(ownName: String, type: String, ipv6: Bool = true, configuration: Configuration = .init()) {
    table = PeerTable(ownName: ownName, type: type, ipv6: ipv6)
    self.configuration = configuration
  }

  /// Lines waiting for a peer.
  public var pendingLines: Int { pending.count }

  /// The peers a line goes to now.
  public var recipients: [PeerTable.Peer] {
    if let target = configuration.target { return table.peer(named: target).map { [$0] } ?? [] }
    return table.peers
  }

  // MARK: Events

  /// A browser event: peers appear, move and go; queued lines go to a peer that appeared.
  public mutating func browserEvent(_ event: MDNSBrowserEvent, now: Deadline) -> [PeerSessionAction] {
    guard state != .finished else { return [] }
    return changes(table.apply(event), now: now)
  }

  /// Our advertisement was renamed after a conflict.
  public mutating func renamed(to name: String, now: Deadline) -> [PeerSessionAction] {
    guard state != .finished else { return [] }
    return changes(table.rename(to: name), now: now)
  }

  /// A line of input.
  public mutating func line(_ text: String, now: Deadline) -> [PeerSessionAction] {
    guard state == .running else { return [] }
    let bytes = Array(text.utf8)
    guard bytes.count <= configuration.maxDatagramBytes else {
      return [.refused(text, reason: "longer than \(configuration.maxDatagramBytes) bytes")]
    }
    let to = recipients
    if !to.isEmpty { return [.send(bytes, to: to)] }
    var actions: [PeerSessionAction] = []
    if pending.count >= configuration.maxPendingLines {
      actions.append(
        .refused(pending.removeFirst(), reason: "the queue is full (\(configuration.maxPendingLines) lines)"))
    }
    pending.append(text)
    actions.append(.queued(pending: pending.count))
    return actions
  }

  /// A datagram arrived on our socket from `sender`.
  public mutating func datagram(_ bytes: some Collection<UInt8>, from sender: SocketAddress, now: Deadline)
    -> [PeerSessionAction]
  {
    guard state != .finished else { return [] }
    let text = Self.displayText(bytes)
    if held.isEmpty, let name = table.name(of: sender) {
      return [.received(text, peer: name, sender: sender)]
    }
    var actions: [PeerSessionAction] = []
    if held.count >= configuration.maxHeldDatagrams {
      let first = held.removeFirst()
      actions.append(.received(first.text, peer: table.name(of: first.sender), sender: first.sender))
    }
    held.append(Held(text: text, sender: sender, until: now.adding(configuration.unknownSenderGrace)))
    return actions + releaseHeld(now: now) + timer()
  }

  /// The input ended (EOF): finish now when nothing waits, else drain.
  public mutating func inputEnded(now: Deadline) -> [PeerSessionAction] {
    guard state == .running else { return [] }
    if pending.isEmpty { return finish() }
    state = .draining(until: now.adding(configuration.drainTimeout))
    return timer()
  }

  /// A timer asked for with ``PeerSessionAction/scheduleTimer(at:)`` fired.
  public mutating func timerFired(now: Deadline) -> [PeerSessionAction] {
    guard state != .finished else { return [] }
    scheduled = nil
    let actions = releaseHeld(now: now)
    if case .draining(let deadline) = state, now >= deadline { return actions + finish() }
    return actions + timer()
  }

  /// Stops at once (a signal): each queued line is reported refused, not sent, and the
  /// session finishes with nothing counted as unsent (stopping was asked for).
  public mutating func stop() -> [PeerSessionAction] {
    guard state != .finished else { return [] }
    let dropped = pending.map { PeerSessionAction.refused($0, reason: "stopped before a peer appeared") }
    pending = []
    return dropped + finish()
  }

  // MARK: Internals

  private mutating func changes(_ changes: [PeerTable.Change], now: Deadline) -> [PeerSessionAction] {
    var actions: [PeerSessionAction] = changes.map { change in
      switch change {
      case .appeared(let peer): .peerAppeared(peer)
      case .moved(let peer): .peerMoved(peer)
      case .disappeared(let name): .peerLeft(name)
      }
    }
    actions += releaseHeld(now: now)
    let to = recipients
    if !pending.isEmpty, !to.isEmpty {
      actions += pending.map { .send(Array($0.utf8), to: to) }
      pending = []
      if case .draining = state { return actions + finish() }
    }
    return actions + timer()
  }

  /// Prints held datagrams from the front while their sender is known or their wait is over.
  private mutating func releaseHeld(now: Deadline) -> [PeerSessionAction] {
    var actions: [PeerSessionAction] = []
    while let first = held.first {
      let name = table.name(of: first.sender)
      guard name != nil || first.until <= now else { break }
      held.removeFirst()
      actions.append(.received(first.text, peer: name, sender: first.sender))
    }
    return actions
  }

  /// The timer the session needs next (the drain deadline or the first held datagram's),
  /// when it is not the one already asked for.
  private mutating func timer() -> [PeerSessionAction] {
    var next = held.first?.until
    if case .draining(let deadline) = state { next = min(next ?? deadline, deadline) }
    guard let next, next != scheduled else { return [] }
    scheduled = next
    return [.scheduleTimer(at: next)]
  }

  /// → `finished`: what is held is printed, and the unsent lines counted.
  private mutating func finish() -> [PeerSessionAction] {
    let actions = held.map {
      PeerSessionAction.received($0.text, peer: table.name(of: $0.sender), sender: $0.sender)
    }
    held = []
    state = .finished
    return actions + [.finish(unsent: pending.count)]
  }

  /// A datagram as one line of text: UTF-8 (invalid bytes become U+FFFD), line breaks and
  /// other control characters escaped so one datagram never prints as several lines.
  public static func displayText(_ bytes: some Collection<UInt8>) -> String {
    var out = ""
    for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
      switch scalar.value {
      case 0x0A: out += "\\n"
      case 0x0D: out += "\\r"
      case 0x09: out += "\t"
      case 0..<0x20, 0x7F: out += "\\u{" + String(scalar.value, radix: 16) + "}"
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }
}
