import SwitchboardChat
import SwitchboardIO

/// Why a join was refused (`--max-joins-per-minute`, `--max-rooms`); the answers are in
/// docs/BAD-INPUT.md.
enum JoinRefusal: Error, Equatable {
  case tooManyJoins(limit: Int)
  case tooManyRooms(limit: Int)

  /// The JSON protocol's error code.
  var code: String {
    switch self {
    case .tooManyJoins: "too_many_joins"
    case .tooManyRooms: "too_many_rooms"
    }
  }

  /// The text of the answer (after `! ` on a line).
  var message: String {
    switch self {
    case .tooManyJoins(let limit): JoinRateLimiter.refusal(limit: limit)
    case .tooManyRooms(let limit): RoomCap.refusal(limit: limit)
    }
  }
}

/// The bounds on what members make grow: room joins per minute and rooms kept.
extension LoopContext {
  /// Whether `member` may move to `room` now: the join counts against its joins a minute,
  /// and a room not kept yet against the room cap. Counted in `/metrics` when refused.
  func admitJoin(of member: MemberID, to room: String) -> JoinRefusal? {
    if !joins.admit(member, now: Deadline.now().nanoseconds), let limit = joins.perMinute {
      metrics.growth.joinsRateLimited.add(1, ordering: .relaxed)
      return .tooManyJoins(limit: limit)
    }
    return admitRoom(room)
  }

  /// Whether an upgrade to `/rooms/NAME` may go ahead under `--max-rooms` (answered `503`
  /// when not), without keeping the room: the session keeps it once its token, if any, is
  /// accepted (``admitRoom(_:)``).
  func upgradeMayJoin(_ room: String) -> JoinRefusal? {
    guard !core.rooms.wouldAdmit(room), let limit = core.rooms.limit else { return nil }
    metrics.growth.roomsRefused.add(1, ordering: .relaxed)
    return .tooManyRooms(limit: limit)
  }

  /// Whether `room` may be joined under `--max-rooms`, keeping it when it is new (a new
  /// connection's first join asks only this: it counts against no join rate).
  func admitRoom(_ room: String) -> JoinRefusal? {
    switch core.rooms.admit(room) {
    case .known:
      return nil
    case .added:
      metrics.growth.roomsKnown.store(core.rooms.count, ordering: .relaxed)
      return nil
    case .refused(let limit):
      metrics.growth.roomsRefused.add(1, ordering: .relaxed)
      return .tooManyRooms(limit: limit)
    }
  }
}
