import Dispatch
import SwitchboardChat
import SwitchboardIO
import SwitchboardLog
import SwitchboardRESP
import SwitchboardWire
import Synchronization

/// Reading a room's state and stream: the read script's answers, the seen-id and
/// checkpoint it is given, and the lost-write checks (see ``RedisRoomBroker``).
extension RedisRoomBroker {
  // MARK: Reading

  struct ReadAnswer {
    var epoch: String
    var last: UInt64
    var messages: [ChatMessage]
    /// The last id Redis held when the read found lost writes (the room's epoch was
    /// replaced), else `nil`.
    var lost: Int64?
    /// What the script found when `lost` is set (``lostWrites(_:known:last:epoch:why:)``).
    var why = ""
  }

  /// What this node has seen of a room: its epoch and the highest id in it (`("", 0)` for
  /// a room not open here: nothing to compare with). On the loop.
  func seen(_ room: String) -> (epoch: String, id: UInt64) {
    state.withLock { state in
      guard let sequence = state.rooms[room]?.sequence, sequence.phase != .opening else { return ("", 0) }
      return (sequence.epoch, sequence.highest)
    }
  }

  /// What a script of `room` sends beside its own arguments, read under one lock: what this
  /// node has seen (``seen(_:)``), and what it compares with the stream — the checkpoint a
  /// lost connection left, else for a `resync` the newest message delivered here, in the
  /// room's current epoch only (its digest computed after unlocking). On the loop.
  func scriptContext(_ room: String, resync: Bool) -> (known: (epoch: String, id: UInt64), check: Checkpoint?) {
    typealias Newest = (epoch: String, message: ChatMessage)
    let (known, checkpoint, newest) = state.withLock { state -> ((epoch: String, id: UInt64), Checkpoint?, Newest?) in
      guard let room = state.rooms[room], room.sequence.phase != .opening else { return (("", 0), nil, nil) }
      let known = (room.sequence.epoch, room.sequence.highest)
      if let checkpoint = room.checkpoint, checkpoint.epoch == room.sequence.epoch { return (known, checkpoint, nil) }
      guard resync, let newest = room.newest, newest.epoch == room.sequence.epoch else { return (known, nil, nil) }
      return (known, nil, newest)
    }
    return (known, checkpoint ?? newest.map { Checkpoint(epoch: $0.epoch, message: $0.message) })
  }

  /// A connection to Redis was lost: each open room keeps the newest message delivered so
  /// far as its checkpoint (an older one not yet checked stays).
  func checkpointRooms() {
    let pending = state.withLock { state -> [(String, String, ChatMessage)] in
      state.rooms.compactMap { name, room in
        guard let newest = room.newest, newest.epoch == room.sequence.epoch,
          room.checkpoint?.epoch != room.sequence.epoch
        else { return nil }
        return (name, newest.epoch, newest.message)
      }
    }
    let made = pending.map { ($0.0, Checkpoint(epoch: $0.1, message: $0.2)) }
    state.withLock { state in
      for (room, checkpoint) in made where state.rooms[room]?.checkpoint?.epoch != checkpoint.epoch {
        state.rooms[room]?.checkpoint = checkpoint
      }
    }
  }

  /// A script that carried `checkpoint` answered: the room is checked.
  func checked(_ room: String, _ checkpoint: Checkpoint?) {
    guard let checkpoint else { return }
    state.withLock { state in
      state.withRoom(room) { open in if open.checkpoint == checkpoint { open.checkpoint = nil } }
    }
  }

  /// A script found that `room` lost writes this node saw in `known.epoch` (Redis failed
  /// over to a replica that had not received the newest writes) and moved it to `epoch`:
  /// one line and a count. `why` is the script's finding — `behind` (Redis's last id below
  /// the highest seen here), `differs` or `missing` (the stream's entry at the newest id
  /// delivered here, checked at a re-sync). The delivery path then meets the new epoch like
  /// any other.
  func lostWrites(
    _ room: String, known: (epoch: String, id: UInt64), last: Int64, epoch: String, why: String = "behind"
  ) {
    state.withLock { $0.lostWrites += 1 }
    configuration.logger.warning(
      "Redis lost acknowledged writes of a room (a failover to a replica that lacked them); the room starts a new epoch",
      metadata: [
        "room": room, "epoch": known.epoch, "seen": "\(known.id)", "redisLast": "\(last)", "newEpoch": epoch,
        "found": why,
      ])
  }

  /// Reads `room`: its epoch and last id, and up to `count` entries after `id` (or the
  /// newest `count`), those after `id` within `budget` bytes of bodies (and the entry that
  /// crosses it) when `budget` is above 0.
  func read(
    _ room: String, keys: RedisRoomKeys, after id: UInt64 = 0, count: Int, budget: Int = 0, newest: Bool = false,
    known: (epoch: String, id: UInt64) = ("", 0), check: Checkpoint? = nil,
    _ completion: @escaping (Result<ReadAnswer, BrokerError>) -> Void
  ) {
    guard let client else { return completion(.failure(.closed)) }
    let arguments = [
      InMemoryHistoryStore.newEpoch(), newest ? "newest" : "after", String(id), String(count), known.epoch,
      String(known.id), String(check?.id ?? 0), check?.digest ?? "", String(budget),
    ]
    client.eval(
      RedisBrokerScripts.read, keys: [Array(keys.meta.utf8), Array(keys.log.utf8)],
      arguments: arguments.map { Array($0.utf8) }
    ) { [self] result in
      let answer = result.mapError { BrokerError.unavailable("cannot read room \(room): \($0)") }
        .flatMap { reply in Self.decodeRead(reply, room: room) }
      if case .success(let read) = answer {
        checked(room, check)
        if let lost = read.lost { lostWrites(room, known: known, last: lost, epoch: read.epoch, why: read.why) }
      }
      completion(answer)
    }
  }

  func read(
    _ room: String, keys: RedisRoomKeys, newest count: Int,
    _ completion: @escaping (Result<ReadAnswer, BrokerError>) -> Void
  ) {
    read(room, keys: keys, count: count, newest: true, known: seen(room), completion)
  }

  static func decodeRead(_ reply: RESPValue, room: String) -> Result<ReadAnswer, BrokerError> {
    guard let values = reply.elements, values.count == 5, let epoch = values[0].string,
      let last = values[1].integer, let entries = values[2].elements, let lost = values[3].integer
    else { return .failure(.unavailable("unexpected read reply for room \(room)")) }
    var messages: [ChatMessage] = []
    for entry in entries {
      guard let parts = entry.elements, parts.count == 2, let entryID = parts[0].string,
        let id = UInt64(entryID.prefix(while: { $0 != "-" })), let fields = parts[1].elements,
        fields.count >= 2, let body = fields[1].bytes,
        var message = try? RedisBrokerPayload.decodeBody(body[...], room: room)
      else { continue }
      message.id = id
      messages.append(message)
    }
    return .success(
      ReadAnswer(
        epoch: epoch, last: UInt64(max(0, last)), messages: messages, lost: lost >= 0 ? lost : nil,
        why: values[4].string ?? ""))
  }
}
