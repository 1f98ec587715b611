import Synchronization

/// `--max-rooms`: how many rooms this node keeps, in memory and on disk. A join (`/join`,
/// a JSON `join`, an upgrade to `/rooms/NAME`) of a room it does not know yet is refused
/// once it knows `limit`; rooms it knows always work. It starts knowing the default room
/// and the rooms its broker already keeps (the history database's), and never forgets one:
/// a room's row in the database (and, with `--ephemeral`, its history in memory) stays
/// after the hub unloads the idle room, so this counts what the node stores, not who is in
/// a room now. Shared by every loop.
final class RoomCap: Sendable {
  /// What ``admit(_:)`` decided.
  enum Verdict: Equatable {
    /// A room already kept.
    case known
    /// A new room, under the cap: kept from now on.
    case added
    /// A new room past the cap.
    case refused(limit: Int)
  }

  private struct State {
    var known: Set<String>
  }

  /// The most rooms kept; `nil`: no cap.
  let limit: Int?
  private let state: Mutex<State>

  init(limit: Int?, known: some Sequence<String>) {
    self.limit = limit
    self.state = Mutex(State(known: Set(known)))
  }

  /// Whether `room` may be joined: known, or new and under the cap (then it is known).
  func admit(_ room: String) -> Verdict {
    state.withLock { state in
      if state.known.contains(room) { return .known }
      if let limit, state.known.count >= limit { return .refused(limit: limit) }
      state.known.insert(room)
      return .added
    }
  }

  /// Whether ``admit(_:)`` would let `room` in now, without keeping it: an upgrade is
  /// answered before its token is checked, and a refused token must not take a room.
  func wouldAdmit(_ room: String) -> Bool {
    state.withLock { state in
      guard let limit else { return true }
      return state.known.contains(room) || state.known.count < limit
    }
  }

  /// Whether `room` is known (the server API's rooms that exist).
  func knows(_ room: String) -> Bool {
    state.withLock { $0.known.contains(room) }
  }

  /// Rooms known now (`switchboard_rooms_known`).
  var count: Int { state.withLock { $0.known.count } }

  /// The answer to a refused join (after `! ` on a line, in a JSON `too_many_rooms` error,
  /// in a 503's body).
  static func refusal(limit: Int) -> String {
    "too many rooms (this server keeps at most \(limit)); join an existing room"
  }
}
