import Dispatch
import SwitchboardChat
import SwitchboardIO
import SwitchboardLog
import SwitchboardRESP
import SwitchboardWire
import Synchronization

/// Opening rooms, publishing through the script, and delivering what the room's channel
/// and the script's answers bring, in id order (see ``RedisRoomBroker``).
extension RedisRoomBroker {
  // MARK: Opening

  func subscribe(_ room: String, keys: RedisRoomKeys) {
    guard let subscriber = connections.withLock({ $0?.subscriber }) else { return }
    Task { [self] in
      do throws(RedisError) {
        try await subscriber.subscribe([keys.channel])
        loop.execute { self.readForOpen(room, keys: keys) }
      } catch {
        loop.execute { self.openFailed(room, keys: keys, error: error) }
      }
    }
  }

  /// The room could not be opened now: tell whoever waits, and keep trying (the
  /// subscription stands; the next answer opens the room).
  func openFailed(_ room: String, keys: RedisRoomKeys, error: RedisError) {
    let (openers, closed) = state.withLock { state -> ([Opener], Bool) in
      (state.withRoom(room) { open in Self.take(&open.openers) } ?? [], state.isClosed)
    }
    for opener in openers {
      opener.executor.execute { opener.completion(.failure(.unavailable("cannot open the room: \(error)"))) }
    }
    guard !closed else { return }
    _ = loop.schedule(after: .milliseconds(500)) { [self] in readForOpen(room, keys: keys) }
  }

  func readForOpen(_ room: String, keys: RedisRoomKeys) {
    let limit = state.withLock { $0.rooms[room]?.openers.map(\.limit).max() ?? 0 }
    read(room, keys: keys, newest: limit) { [self] result in
      switch result {
      case .failure(let error):
        openFailed(room, keys: keys, error: RedisError.connectionLost("\(error)"))
      case .success(let answer):
        let recent = answer.messages.reversed() as [ChatMessage]
        let last = max(answer.last, recent.last?.id ?? 0)
        let openers = state.withLock { state -> [Opener] in
          let sink = state.sink
          return state.withRoom(room) { open in
            if open.sequence.phase == .opening {
              if let newest = recent.last, newest.id == last { open.newest = (answer.epoch, newest) }
              let step = open.sequence.open(last: last, epoch: answer.epoch)
              apply(step, to: &open, named: room, sink: sink)
            }
            return Self.take(&open.openers)
          } ?? []
        }
        for opener in openers {
          let snapshot = RoomSnapshot(
            lastID: last, epoch: answer.epoch, recent: Array(recent.suffix(opener.limit)))
          opener.executor.execute { opener.completion(.success(snapshot)) }
        }
      }
    }
  }

  // MARK: Publishing

  func attempt(
    _ draft: MessageDraft, ref: String, deadline: ContinuousClock.Instant, executor: (any ShardExecutor)?,
    completion: (@Sendable (Result<PublishReceipt, BrokerError>) -> Void)?
  ) {
    let remaining = deadline - ContinuousClock.now
    guard let client, remaining > .zero else {
      state.withLock { _ = $0.inFlight.removeValue(forKey: ref) }
      return fail(draft.room, .unavailable("Redis did not answer in time"), executor, completion)
    }
    let keys = RedisRoomKeys(room: draft.room)
    let body = RedisBrokerPayload.body(draft.content)
    let (known, check) = scriptContext(draft.room, resync: false)
    let arguments: [[UInt8]] = [
      Array(keys.channel.utf8), Array(String(max(1, configuration.historyLimit)).utf8),
      Array(InMemoryHistoryStore.newEpoch().utf8), body, Array(ref.utf8),
      Array(String(configuration.refLifetime).utf8), Array(known.epoch.utf8), Array(String(known.id).utf8),
      Array(String(check?.id ?? 0).utf8), Array((check?.digest ?? "").utf8),
    ]
    client.eval(
      connections.withLock { $0?.publish } ?? RedisBrokerScripts.publish,
      keys: [keys.meta, keys.log, keys.ref(draft.clientKey ?? ref)].map { Array($0.utf8) },
      arguments: arguments, timeout: remaining
    ) { [self] result in
      switch result {
      case .success(let reply):
        guard let values = reply.elements, values.count == 5, let id = values[0].integer, id > 0,
          let epoch = values[1].string
        else {
          state.withLock { _ = $0.inFlight.removeValue(forKey: ref) }
          return fail(draft.room, .unavailable("unexpected publish reply \(reply)"), executor, completion)
        }
        checked(draft.room, check)
        if let lost = values[3].integer, lost >= 0 {
          lostWrites(draft.room, known: known, last: lost, epoch: epoch, why: values[4].string ?? "")
        }
        let message = draft.message(id: UInt64(id))
        let waiter = Waiter(id: UInt64(id), epoch: epoch, executor: executor, completion: completion)
        let seenBefore = values[2].integer == 1
        let fill = state.withLock { state -> (RedisRoomKeys, UInt64)? in
          state.inFlight[ref] = nil
          let sink = state.sink
          let open = state.withRoom(draft.room) { room -> (RedisRoomKeys, UInt64)? in
            room.waiters.append(waiter)
            guard seenBefore, draft.clientKey != nil else {
              let step = room.sequence.receive(message, epoch: epoch, origin: draft.origin)
              apply(step, to: &room, named: draft.room, sink: sink)
              return nil
            }
            // A client's retry: the first publish (maybe on another node) was announced with
            // its own content; answer once it is delivered here, reading the stream if it
            // has not arrived (its announcement may have been lost with a connection).
            apply(RedisRoomSequence.Step(), to: &room, named: draft.room, sink: sink)
            guard room.waiters.contains(where: { $0.id == UInt64(id) && $0.epoch == epoch }),
              room.sequence.resync()
            else { return nil }
            return (room.keys, room.sequence.delivered)
          }
          guard let open else {
            // The room went idle meanwhile: nothing here waits for its delivery.
            Self.answer([waiter])
            return nil
          }
          return open
        }
        if let (keys, after) = fill { self.fill(draft.room, keys: keys, after: after) }
      case .failure(let error) where error.kind == .connectionLost || error.kind == .timeout:
        // It may have run: send it again with the same ref, which returns the first id.
        attempt(draft, ref: ref, deadline: deadline, executor: executor, completion: completion)
      case .failure(let error):
        state.withLock { _ = $0.inFlight.removeValue(forKey: ref) }
        fail(draft.room, .unavailable("publish failed: \(error)"), executor, completion)
      }
    }
  }

  func fail(
    _ room: String, _ error: BrokerError, _ executor: (any ShardExecutor)?,
    _ completion: (@Sendable (Result<PublishReceipt, BrokerError>) -> Void)?
  ) {
    state.withLock { $0.sink }?.keepFailed(room: room, id: nil, error: error)
    guard let completion else { return }
    if let executor { executor.execute { completion(.failure(error)) } } else { completion(.failure(error)) }
  }

  // MARK: Delivering

  /// A pub/sub message (on the loop).
  func received(_ message: RedisPubSubMessage) {
    if message.channel == probeChannel {
      guard let token = UInt64(String(decoding: message.payload, as: UTF8.self)) else { return }
      return state.withLock { $0.probe.arrived(token: token) }
    }
    if message.channel == Self.controlChannel { return receivedControl(message) }
    if RedisBrokerPayload.isPresence(message.payload) { return receivedPresence(message) }
    let name = RedisRoomKeys.room(channel: message.channel)
    state.withLock { state in
      let (sink, inFlight) = (state.sink, state.inFlight)
      let open = name.flatMap { name in
        state.withRoom(name) { room in
          guard let payload = try? RedisBrokerPayload.decodePayload(message.payload, room: name) else {
            configuration.logger.warning("undecodable payload on \(message.channel) ignored")
            return
          }
          let origin = inFlight[payload.ref] ?? nil
          let step = room.sequence.receive(payload.message, epoch: payload.epoch, origin: origin)
          apply(step, to: &room, named: name, sink: sink)
        }
      }
      // No room open here by that name (it went idle while its unsubscription was under
      // way): nothing waits for it.
      if open == nil { state.strays += 1 }
    }
  }

  /// A presence announcement: another node's join, leave or rename, shown here.
  func receivedPresence(_ message: RedisPubSubMessage) {
    guard let room = RedisRoomKeys.room(channel: message.channel) else {
      return state.withLock { $0.strays += 1 }
    }
    let (open, sink) = state.withLock { ($0.rooms[room] != nil, $0.sink) }
    guard open else { return state.withLock { $0.strays += 1 } }
    guard let sink else { return }
    if let (event, node) = Self.decodeTyping(message.payload, room: room) {
      if node != configuration.nodeID { sink.remoteTyping(event) }
      return
    }
    if let order = Self.decodeDisconnect(message.payload) {
      if order.node != configuration.nodeID {
        sink.remoteDisconnect(name: order.name, room: room, reason: order.reason)
      }
      return
    }
    guard let (event, node) = try? RedisBrokerPayload.decodePresence(message.payload, room: room) else {
      configuration.logger.warning("undecodable presence announcement on \(message.channel) ignored")
      return
    }
    guard node != configuration.nodeID else { return }
    sink.remotePresence(event)
  }

  /// Delivers what `step` says to `sink`, answers the publishes it completed, and starts a
  /// fill. `room` is the open room `name`, changed in place (``State/withRoom(_:_:)``).
  func apply(
    _ step: RedisRoomSequence.Step, to room: inout Room, named name: String, sink: (any RoomBrokerSink)?
  ) {
    let epoch = room.sequence.epoch
    if let sink {
      for (message, origin) in step.deliver { sink.deliver(message, epoch: epoch, origin: origin) }
    }
    if let (message, _) = step.deliver.last { room.newest = (epoch, message) }
    let delivered = room.sequence.delivered
    var waiting: [Waiter] = []
    var done: [Waiter] = []
    for waiter in room.waiters {
      if waiter.epoch == epoch && waiter.id > delivered {
        waiting.append(waiter)
      } else {
        done.append(waiter)
      }
    }
    room.waiters = waiting
    Self.answer(done)
    if step.fill {
      let keys = room.keys
      let after = delivered
      loop.execute { [self] in fill(name, keys: keys, after: after) }
    }
  }

  /// Empties `list` and returns what it held.
  static func take<T>(_ list: inout [T]) -> [T] {
    defer { list = [] }
    return list
  }

  /// Completes publishes whose message was delivered (or whose room is gone here).
  static func answer(_ waiters: [Waiter]) {
    for waiter in waiters {
      guard let completion = waiter.completion else { continue }
      let receipt = PublishReceipt(id: waiter.id, epoch: waiter.epoch)
      if let executor = waiter.executor {
        executor.execute { completion(.success(receipt)) }
      } else {
        completion(.success(receipt))
      }
    }
  }

  /// Reads the stream after `after` into the room's sequence. A `resync` (after a
  /// reconnect) also has the script compare the newest message delivered here with the
  /// stream's entry at its id (``RedisBrokerScripts/read``).
  func fill(_ room: String, keys: RedisRoomKeys, after: UInt64, resync: Bool = false) {
    let (known, check) = scriptContext(room, resync: resync)
    read(room, keys: keys, after: after, count: Self.fillCount, known: known, check: check) { [self] result in
      state.withLock { state in
        let sink = state.sink
        state.withRoom(room) { open in
          switch result {
          case .success(let answer) where answer.epoch != open.sequence.epoch && after > 0:
            // Redis lost the room: the new epoch's history starts at 1, read it from there.
            loop.execute { [self] in fill(room, keys: keys, after: 0) }
          case .success(let answer):
            let step = open.sequence.filled(
              answer.messages, epoch: answer.epoch, complete: answer.messages.count < Self.fillCount)
            apply(step, to: &open, named: room, sink: sink)
          case .failure:
            open.sequence.fillFailed()
          }
        }
      }
    }
  }
}
