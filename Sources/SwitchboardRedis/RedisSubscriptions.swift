import SwitchboardIO

/// A subscriber's subscriptions, kept across reconnects, and the confirmations it waits for.
///
/// Redis confirms `SUBSCRIBE a b` with one `subscribe` event per channel (a RESP3 push, or
/// under RESP2 an array in the reply stream), in order; ``confirm(_:)`` matches them to the
/// oldest request of that kind.
struct RedisSubscriptions {
  typealias Completion = (Result<Void, RedisError>) -> Void

  /// The three families of subscription.
  enum Kind: CaseIterable {
    case channel, pattern, shard

    var subscribeCommand: String {
      switch self {
      case .channel: "SUBSCRIBE"
      case .pattern: "PSUBSCRIBE"
      case .shard: "SSUBSCRIBE"
      }
    }

    var unsubscribeCommand: String {
      switch self {
      case .channel: "UNSUBSCRIBE"
      case .pattern: "PUNSUBSCRIBE"
      case .shard: "SUNSUBSCRIBE"
      }
    }

    /// `names` split into what one command may carry: everything at once, except shard
    /// channels, which one `SSUBSCRIBE`/`SUNSUBSCRIBE` takes only from a single slot (a
    /// cluster answers `CROSSSLOT` otherwise) — one batch per slot, in slot order.
    func batches(_ names: [String]) -> [[String]] {
      guard self == .shard, names.count > 1 else { return names.isEmpty ? [] : [names] }
      let bySlot = Dictionary(grouping: names) { RedisKeySlot.slot(of: $0) }
      return bySlot.keys.sorted().map { bySlot[$0]! }
    }
  }

  private struct Confirmation {
    /// The event word that confirms it (`subscribe`, `punsubscribe` …).
    let event: String
    var remaining: Int
    let deadline: Deadline
    /// `true` for a subscription (made again on the next connection), `false` for an unsubscription.
    let subscribes: Bool
    let completion: Completion
  }

  private(set) var names: [Kind: Set<String>] = [:]
  /// What the current connection was asked to subscribe to (names change while a new
  /// connection's handshake runs; ``reconcile()`` sends the difference once it is ready).
  private var sent: [Kind: Set<String>] = [:]
  private var confirmations: [Confirmation] = []
  /// Requests made while not connected: answered once the next connection has subscribed.
  private var waiting: [(deadline: Deadline, completion: Completion)] = []

  var isEmpty: Bool { names.values.allSatisfy(\.isEmpty) }

  mutating func add(_ kind: Kind, _ new: [String]) { names[kind, default: []].formUnion(new) }

  mutating func remove(_ kind: Kind, _ old: [String]) { names[kind, default: []].subtract(old) }

  /// Records that the current connection was sent a subscribe (`true`) or unsubscribe for `changed`.
  mutating func markSent(_ kind: Kind, _ changed: [String], subscribed: Bool) {
    if subscribed {
      sent[kind, default: []].formUnion(changed)
    } else {
      sent[kind, default: []].subtract(changed)
    }
  }

  /// What the current connection still has to subscribe to and unsubscribe from, per kind.
  func differences() -> (subscribe: [(Kind, [String])], unsubscribe: [(Kind, [String])]) {
    var subscribe: [(Kind, [String])] = []
    var unsubscribe: [(Kind, [String])] = []
    for kind in Kind.allCases {
      let wanted = names[kind, default: []]
      let asked = sent[kind, default: []]
      let missing = wanted.subtracting(asked)
      let extra = asked.subtracting(wanted)
      if !missing.isEmpty { subscribe.append((kind, missing.sorted())) }
      if !extra.isEmpty { unsubscribe.append((kind, extra.sorted())) }
    }
    return (subscribe, unsubscribe)
  }

  /// Expects `count` confirmation events for a command just sent.
  mutating func expect(
    _ kind: Kind, subscribes: Bool, count: Int, deadline: Deadline, _ completion: @escaping Completion
  ) {
    let event = (subscribes ? kind.subscribeCommand : kind.unsubscribeCommand).lowercased()
    confirmations.append(
      Confirmation(
        event: event, remaining: count, deadline: deadline, subscribes: subscribes, completion: completion))
  }

  /// A request to answer after the next connection subscribed.
  mutating func wait(until deadline: Deadline, _ completion: @escaping Completion) {
    waiting.append((deadline, completion))
  }

  /// One confirmation event; returns the request it completes, if it was the last one due.
  mutating func confirm(_ event: String) -> Completion? {
    guard let index = confirmations.firstIndex(where: { $0.event == event }) else { return nil }
    confirmations[index].remaining -= 1
    guard confirmations[index].remaining <= 0 else { return nil }
    return confirmations.remove(at: index).completion
  }

  func hasExpired(_ now: Deadline) -> Bool { confirmations.contains { $0.deadline <= now } }

  /// The connection went away: subscriptions wait for the next one, unsubscriptions are done
  /// (the next connection will not subscribe to those names).
  mutating func connectionLost(_ error: RedisError) -> [(Completion, Result<Void, RedisError>)] {
    var done: [(Completion, Result<Void, RedisError>)] = []
    for confirmation in confirmations {
      if confirmation.subscribes {
        waiting.append((confirmation.deadline, confirmation.completion))
      } else {
        done.append((confirmation.completion, .success(())))
      }
    }
    confirmations = []
    sent = [:]
    return done
  }

  /// The requests waiting for a connection, taken out.
  mutating func takeWaiting() -> [Completion] {
    let done = waiting.map(\.completion)
    waiting = []
    return done
  }

  /// Waiting requests past their deadline.
  mutating func expireWaiting(_ now: Deadline) -> [Completion] {
    guard waiting.contains(where: { $0.deadline <= now }) else { return [] }
    let expired = waiting.filter { $0.deadline <= now }.map(\.completion)
    waiting.removeAll { $0.deadline <= now }
    return expired
  }

  /// Everything pending, for a close.
  mutating func failAll() -> [Completion] {
    let all = confirmations.map(\.completion) + waiting.map(\.completion)
    confirmations = []
    waiting = []
    sent = [:]
    return all
  }
}
