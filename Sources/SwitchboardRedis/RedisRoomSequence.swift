import SwitchboardChat
import SwitchboardWire

/// One room's delivery order on one node: what the Redis broker has handed to the hub,
/// what arrived ahead of a gap, and whether a fill from the stream is under way. A pure
/// value type — the broker feeds it what arrives (pub/sub payloads, script replies, stream
/// reads) and does what it answers.
///
/// Rules: ids of one epoch are delivered once, in order, with no gaps; an id at or below
/// the last delivered is a duplicate (dropped); an id past the next one waits (at most
/// ``maxAhead`` of them) and asks for a fill; a fill's messages close the gap, and what the
/// stream no longer holds (trimmed, or lost) is skipped. A message of another epoch means
/// Redis lost the room: the sequence starts again from that epoch's first message.
struct RedisRoomSequence {
  /// Where the room stands.
  enum Phase: Equatable {
    /// Subscribed, waiting for the room's state: everything waits.
    case opening
    /// Delivering as messages arrive.
    case open
    /// A gap was seen; a read of the stream is under way.
    case filling
  }

  /// What the caller must do after feeding a message.
  struct Step {
    /// Deliver these, in this order.
    var deliver: [(ChatMessage, MemberID?)] = []
    /// Read the stream after ``RedisRoomSequence/delivered`` (a gap was seen).
    var fill = false
  }

  private(set) var phase = Phase.opening
  private(set) var epoch = ""
  /// The last id handed to the hub.
  private(set) var delivered: UInt64 = 0
  /// The highest id of ``epoch`` this node has seen: delivered, or waiting behind a gap.
  /// Redis's last id is never below it unless Redis lost acknowledged writes.
  var highest: UInt64 { max(delivered, ahead.keys.max() ?? 0) }
  /// Messages that arrived ahead of a gap, by id.
  private var ahead: [UInt64: (ChatMessage, MemberID?, String)] = [:]
  /// How many messages may wait ahead of a gap before the oldest gap is skipped.
  let maxAhead: Int

  init(maxAhead: Int = 10_000) {
    self.maxAhead = maxAhead
  }

  /// The room's state is known: continue after `last` in `epoch`, then take what waited.
  /// Only an opening room opens; a late answer for one already open changes nothing.
  mutating func open(last: UInt64, epoch: String) -> Step {
    guard phase == .opening else { return Step() }
    self.epoch = epoch
    delivered = last
    phase = .open
    let waiting = ahead.values.sorted { $0.0.id < $1.0.id }
    ahead.removeAll()
    var step = Step()
    for (message, origin, epoch) in waiting {
      let next = receive(message, epoch: epoch, origin: origin)
      step.deliver += next.deliver
      step.fill = step.fill || next.fill
    }
    return step
  }

  /// A message arrived (live, or the answer to this node's publish).
  mutating func receive(_ message: ChatMessage, epoch: String, origin: MemberID?) -> Step {
    if phase == .opening {
      if ahead.count < maxAhead { ahead[message.id] = (message, origin, epoch) }
      return Step()
    }
    if epoch != self.epoch {
      // Redis lost the room and a new history began: start over from its first id.
      self.epoch = epoch
      delivered = 0
      ahead.removeAll()
    }
    guard message.id > delivered, ahead[message.id] == nil else { return Step() }
    ahead[message.id] = (message, origin, epoch)
    var step = Step(deliver: drain())
    if !ahead.isEmpty {
      if ahead.count > maxAhead { step.deliver += skipGap() }
      if phase == .open {
        phase = .filling
        step.fill = true
      }
    }
    return step
  }

  /// A stream read asked for by a fill came back: `messages` after ``delivered`` in
  /// `epoch`, oldest first; `complete` is false when the read stopped at its count (more
  /// follow). Closes the gap; what a complete read did not hold is skipped.
  mutating func filled(_ messages: [ChatMessage], epoch: String, complete: Bool = true) -> Step {
    guard phase == .filling || phase == .open else { return Step() }
    if epoch != self.epoch {
      self.epoch = epoch
      delivered = 0
      ahead = ahead.filter { $0.value.2 == epoch }
    }
    // The read starts right after `delivered`: ids below its first are gone from the stream.
    if let first = messages.first?.id {
      let lowest = min(first, ahead.keys.min() ?? first)
      if lowest > delivered + 1 { delivered = lowest - 1 }
    }
    for message in messages where message.id > delivered && ahead[message.id] == nil {
      ahead[message.id] = (message, nil, epoch)
    }
    var step = Step(deliver: drain())
    guard complete else {
      // The read stopped at its count: read on from where it got to.
      phase = .filling
      step.fill = true
      return step
    }
    // Still waiting: the stream no longer holds the missing ids; skip to what arrived.
    while !ahead.isEmpty { step.deliver += skipGap() }
    phase = .open
    return step
  }

  /// The subscription was made again after a loss (pub/sub kept nothing meanwhile): read
  /// the stream after ``delivered``. `false` when a fill is already under way or the room
  /// is still opening (its open reads the state anyway).
  mutating func resync() -> Bool {
    guard phase == .open else { return false }
    phase = .filling
    return true
  }

  /// A fill failed (Redis unreachable): try again on the next message or reconnect.
  mutating func fillFailed() {
    if phase == .filling { phase = .open }
  }

  /// Takes messages that continue ``delivered`` without a gap.
  private mutating func drain() -> [(ChatMessage, MemberID?)] {
    var out: [(ChatMessage, MemberID?)] = []
    while let next = ahead.removeValue(forKey: delivered + 1) {
      out.append((next.0, next.1))
      delivered += 1
    }
    return out
  }

  /// Jumps over the first gap and takes what follows it.
  private mutating func skipGap() -> [(ChatMessage, MemberID?)] {
    guard let first = ahead.keys.min() else { return [] }
    delivered = first - 1
    return drain()
  }
}
