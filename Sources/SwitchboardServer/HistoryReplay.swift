import SwitchboardIO
import SwitchboardWire

/// A replay of kept messages to one connection, cut into slices of about
/// ``sliceBytes`` that are encoded only when the connection has drained the previous ones,
/// so what a replay costs the server is one slice, not the whole history (docs/ARCHITECTURE.md,
/// "Replays"). Output for the member that arrives meanwhile (live messages, presence,
/// replies) is held and leaves after the last slice, in order.
///
/// The messages are the room's own (the ring's objects, shared): a replay keeps them
/// alive, it never copies their text. A class, so that a session that is not replaying
/// pays one reference for it.
final class HistoryReplay {
  /// Bytes one slice (a `history` frame, a line-dialect answer) takes at most, counted as
  /// JSON with every byte that may need an escape escaped (``JSONDialect/sizeBound(_:)``),
  /// unless its first message alone is larger: a slice always carries at least one. Under
  /// the 1 MiB message limit common WebSocket clients default to.
  static let sliceBytes = 512 * 1024

  /// Where the replay stands.
  enum Phase: Equatable {
    /// Slices are left to send.
    case sending
    /// The last slice is queued; held output waits for the connection's drain.
    case sent
  }

  private let messages: [ChatMessage]
  private var next = 0
  private var held: [SharedBytes] = []
  /// Bytes of output held behind the replay.
  private(set) var heldBytes = 0
  /// The history's epoch (every `history` frame carries it).
  let epoch: String
  /// Whether the replay starts where the client asked (its first slice says so).
  let recovered: Bool

  /// Whether it answers a `history` request (its frames say `"requested":true`) rather
  /// than a join.
  let requested: Bool
  /// The limits of the `history` requests that arrived while this replay was under way, in
  /// order: each is answered after it (a replay of its own), so that none cuts a join's
  /// replay short. At most ``maxRequestsAfter``.
  private(set) var requestsAfter: [Int] = []

  /// How many `history` requests may wait behind a replay: a member that asks more while
  /// not reading is a slow consumer (as one with too much output held).
  static let maxRequestsAfter = 64

  /// Queues a `history` request's `limit` for after this replay; `false` past
  /// ``maxRequestsAfter`` (the caller drops the member as a slow consumer).
  func requestAfter(_ limit: Int) -> Bool {
    guard requestsAfter.count < Self.maxRequestsAfter else { return false }
    requestsAfter.append(limit)
    return true
  }

  /// Hands the waiting requests over to the replay that answers the first of them.
  func inherit(_ requests: ArraySlice<Int>) {
    requestsAfter += requests
  }

  init(_ messages: [ChatMessage], epoch: String, recovered: Bool, requested: Bool = false) {
    self.messages = messages
    self.epoch = epoch
    self.recovered = recovered
    self.requested = requested
  }

  /// Where the replay stands.
  private(set) var phase = Phase.sending

  /// Whether the next slice is the first one.
  var atStart: Bool { next == 0 }

  /// Takes the next slice: the messages from the cursor on whose sizes add up to at most
  /// `budget`, and at least one. An empty history is one empty slice.
  func nextSlice(budget: Int = sliceBytes) -> ArraySlice<ChatMessage> {
    let start = next
    next = Self.sliceEnd(messages, from: start, budget: budget)
    if next == messages.count { phase = .sent }
    return messages[start..<next]
  }

  /// The end of the slice of `messages` that starts at `start` and stays within `budget`
  /// bytes (at least one message when one is left).
  static func sliceEnd(_ messages: [ChatMessage], from start: Int, budget: Int = sliceBytes) -> Int {
    var end = start
    var bytes = 0
    while end < messages.count {
      let size = JSONDialect.sizeBound(messages[end])
      if end > start && bytes + size > budget { break }
      bytes += size
      end += 1
    }
    return end
  }

  /// Holds `bytes` for after the replay; `false` once more than `limit` bytes are held (a
  /// member that cannot keep up: the caller drops it as a slow consumer).
  func hold(_ bytes: SharedBytes, limit: Int) -> Bool {
    held.append(bytes)
    heldBytes += bytes.count
    return heldBytes <= limit
  }

  /// The held output, in order; nothing is held after.
  func takeHeld() -> [SharedBytes] {
    defer {
      held = []
      heldBytes = 0
    }
    return held
  }
}
