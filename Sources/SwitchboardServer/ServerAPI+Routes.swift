import SwitchboardAuth
import SwitchboardChat
import SwitchboardHTTP
import SwitchboardIO
import SwitchboardLog
import SwitchboardWire

/// The endpoints (docs/API.md).
extension ServerAPI {
  func route(_ request: HTTPRequest, answer: @escaping Answer) throws(ServerAPIError) -> Outcome {
    let head = request.head
    let parts = head.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst(2)
    switch (parts.first.map(String.init) ?? "", parts.count) {
    case ("publish", 1):
      try require("POST", head)
      return try publish(Self.jsonObject(request), answer: answer)
    case ("broadcast", 1):
      try require("POST", head)
      return try broadcast(Self.jsonObject(request), answer: answer)
    case ("rooms", 1):
      try require("GET", head)
      return rooms(answer: answer)
    case ("rooms", 3) where parts.last == "presence":
      try require("GET", head)
      return presence(try Self.room(parts.dropFirst().first!.removingURLPercentEncoding()), answer: answer)
    case ("rooms", 3) where parts.last == "history":
      try require("GET", head)
      return try history(Self.room(parts.dropFirst().first!.removingURLPercentEncoding()), head.query, answer: answer)
    case ("disconnect", 1):
      try require("POST", head)
      return try disconnect(Self.jsonObject(request), answer: answer)
    case ("info", 1):
      try require("GET", head)
      return .now(info())
    default:
      throw .notFound(head.path)
    }
  }

  /// Refuses a method other than `method` (a GET endpoint also takes HEAD).
  private func require(_ method: String, _ head: HTTPRequestHead) throws(ServerAPIError) {
    if head.method == method || (method == "GET" && head.method == "HEAD") { return }
    throw .methodNotAllowed(method == "GET" ? "GET, HEAD" : method)
  }

  /// A room name as members write it, in its one spelling.
  static func room(_ raw: String) throws(ServerAPIError) -> String {
    guard let room = RoomName.validate(raw) else { throw .badRoom(raw) }
    return room
  }

  /// A required non-empty string field.
  static func string(_ body: [String: JSONValue], _ field: String) throws(ServerAPIError) -> String {
    guard let value = body[field] else { throw .badRequest("\(field) is missing") }
    guard let text = value.stringValue else { throw .badRequest("\(field) must be a string") }
    guard !text.isEmpty else { throw .badRequest("\(field) is empty") }
    return text
  }

  /// An optional string field.
  static func optionalString(_ body: [String: JSONValue], _ field: String) throws(ServerAPIError) -> String? {
    guard let value = body[field], value != .null else { return nil }
    guard let text = value.stringValue else { throw .badRequest("\(field) must be a string") }
    return text
  }

  /// The author of a publish, held to the members' name rule.
  private func author(_ body: [String: JSONValue]) throws(ServerAPIError) -> String {
    let raw = try Self.optionalString(body, "author") ?? ServerAPIConfiguration.defaultAuthor
    switch context.hub.admitName(raw) {
    case .success(let name): return name
    case .failure(let refusal): throw .badRequest("author: \(refusal.answer)")
    }
  }

  // MARK: Publish

  /// The idempotency key of an API publish's `ref`: scoped to the API (no member's key can
  /// be the same) and the author, with the text, as members' refs are.
  static func clientKey(ref: String, author: String, text: String) -> String {
    MessageDraft.clientKey(ref: ref, subject: "\u{0}api", name: author, text: text)
  }

  private func publish(_ body: [String: JSONValue], answer: @escaping Answer) throws(ServerAPIError) -> Outcome {
    let room = try Self.room(Self.string(body, "room"))
    let text = try Self.string(body, "text")
    let author = try author(body)
    let ref = try Self.optionalString(body, "ref")
    let reply = LoopBound(answer, on: context.loop)
    try send(room: room, text: text, author: author, ref: ref) { result in
      let response: HTTPResponse =
        switch result {
        case .success(let receipt): Self.json(200, Self.receipt(receipt))
        case .failure(let error): error.response
        }
      reply.value(response)
    }
    return .later
  }

  /// Publishes into one room (admitted under `--max-rooms` like a join); `done` runs on
  /// this loop.
  private func send(
    room: String, text: String, author: String, ref: String?,
    done: @escaping @Sendable (Result<PublishReceipt, ServerAPIError>) -> Void
  ) throws(ServerAPIError) {
    if case .refused(let limit) = context.core.rooms.admit(room) {
      throw .tooManyRooms(RoomCap.refusal(limit: limit))
    }
    if case .unavailable(_, let reason) = context.hub.broker.health {
      throw .unavailable("the room broker is unavailable: \(reason)")
    }
    context.metrics.messagesPublished.add(1, ordering: .relaxed)
    context.hub.publish(
      toRoom: room, author: author, text: text, clientKey: ref.map { Self.clientKey(ref: $0, author: author, text: text) },
      on: context.loop
    ) { result in
      done(result.mapError { .unavailable("the message was not kept: \($0)") })
    }
  }

  static func receipt(_ receipt: PublishReceipt) -> JSONValue {
    .object(["id": .number(Double(receipt.id)), "epoch": .string(receipt.epoch)])
  }

  private func broadcast(_ body: [String: JSONValue], answer: @escaping Answer) throws(ServerAPIError) -> Outcome {
    guard let list = body["rooms"]?.arrayValue else { throw .badRequest("rooms must be an array of room names") }
    guard !list.isEmpty else { throw .badRequest("rooms is empty") }
    guard list.count <= ServerAPIConfiguration.maxBroadcastRooms else {
      throw .badRequest("rooms names more than \(ServerAPIConfiguration.maxBroadcastRooms) rooms")
    }
    let text = try Self.string(body, "text")
    let author = try author(body)
    // One result per entry, in the order given; answered when the last is in.
    let results = LoopBound([JSONValue?](repeating: nil, count: list.count), on: context.loop)
    let reply = LoopBound(answer, on: context.loop)
    let remaining = LoopBound(list.count, on: context.loop)
    let finish: (Int, JSONValue) -> Void = { index, result in
      results.value[index] = result
      remaining.value -= 1
      if remaining.value == 0 {
        reply.value(Self.json(200, .object(["results": .array(results.value.map { $0 ?? .null })])))
      }
    }
    let bound = LoopBound(finish, on: context.loop)
    for (index, entry) in list.enumerated() {
      let raw = entry.stringValue ?? entry.encoded()
      do throws(ServerAPIError) {
        let room = try Self.room(raw)
        try send(room: room, text: text, author: author, ref: nil) { result in
          let value: JSONValue =
            switch result {
            case .success(let receipt): .object(["room": .string(room), "id": .number(Double(receipt.id)), "epoch": .string(receipt.epoch)])
            case .failure(let error): .object(["room": .string(room), "error": error.json])
            }
          bound.value(index, value)
        }
      } catch {
        finish(index, .object(["room": .string(raw), "error": error.json]))
      }
    }
    return .later
  }

  /// Closes the user's connections here and asks the other nodes to close theirs. With a
  /// `room`, their members of that name are counted from the broker's presence first (so the
  /// count does not race their leaving); without one the order goes to every node and only
  /// this node's closes are counted (counting the others would read every room's presence).
  private func disconnect(_ body: [String: JSONValue], answer: @escaping Answer) throws(ServerAPIError) -> Outcome {
    let user = try Self.string(body, "user")
    let room = try Self.optionalString(body, "room").map { (raw: String) throws(ServerAPIError) in try Self.room(raw) }
    var reason = try Self.optionalString(body, "reason") ?? ServerDisconnect.defaultReason
    // One line of text: the reason ends up in a `* …` line and a close frame.
    reason = String(reason.map { $0.unicodeScalars.contains { $0.properties.generalCategory == .control } ? " " : $0 }.prefix(200))
    let hub = context.hub
    let local = hub.disconnect(name: user, room: room, reason: reason)
    guard let room else {
      hub.broker.disconnect(name: user, room: nil, reason: reason)
      return .now(Self.closed(local))
    }
    let reply = LoopBound(answer, on: context.loop)
    let finalReason = reason
    hub.broker.remoteMembers(room: room, on: context.loop) { result in
      let remote = ((try? result.get()) ?? []).filter { $0 == user || ($0.hasPrefix(user + " (") && $0.hasSuffix(")")) }
      hub.broker.disconnect(name: user, room: room, reason: finalReason)
      reply.value(Self.closed(local + remote.count))
    }
    return .later
  }

  private static func closed(_ count: Int) -> HTTPResponse {
    json(200, .object(["closed": .number(Double(count))]))
  }

  // MARK: Queries

  /// This node's rooms with members, and under `--redis` every node's (with their members
  /// on every node; the last id and epoch only where the room is open here, else `null`).
  private func rooms(answer: @escaping Answer) -> Outcome {
    let reply = LoopBound(answer, on: context.loop)
    Self.clusterRooms(context) { rooms in
      reply.value(Self.json(200, .object(["rooms": .array(rooms.map(\.json))])))
    }
    return .later
  }

  /// Whether `room` is one this node keeps or has open: the others are 404 `unknown_room`.
  private func known(_ room: String) -> Bool {
    context.hub.hasRoom(room) || context.core.rooms.knows(room)
  }

  /// This node's members with their transport and since when, then (under `--redis`) the
  /// other nodes' from the broker's presence, with their node (transport and since `null`
  /// only for a node of an earlier version, which does not record them). A room that neither
  /// this node nor any other has is unknown.
  private func presence(_ room: String, answer: @escaping Answer) -> Outcome {
    let knownHere = known(room)
    let reply = LoopBound(answer, on: context.loop)
    Self.clusterMembers(room, context) { local, remote in
      guard knownHere || !remote.isEmpty else { return reply.value(ServerAPIError.unknownRoom(room).response) }
      reply.value(Self.json(200, .object(["room": .string(room), "members": .array(local + remote)])))
    }
    return .later
  }

  private func history(_ room: String, _ query: [String: String], answer: @escaping Answer) throws(ServerAPIError)
    -> Outcome
  {
    guard known(room) else { throw .unknownRoom(room) }
    let maxLimit = context.configuration.historyLimit
    var limit = ServerAPIConfiguration.defaultHistoryLimit
    if let raw = query["limit"] {
      guard let value = Int(raw), value >= 1 else { throw .badRequest("limit must be a whole number from 1") }
      limit = value
    }
    limit = min(limit, maxLimit)
    var since: UInt64?
    if let raw = query["since"] {
      guard let value = UInt64(raw) else { throw .badRequest("since must be a message id (a whole number)") }
      since = value
    }
    let reply = LoopBound(answer, on: context.loop)
    let hub = context.hub
    hub.history(room: room, after: since ?? 0, shard: context.shard) { [limit] result in
      switch result {
      case .success(let messages):
        let kept = since == nil ? Array(messages.suffix(limit)) : Array(messages.prefix(limit))
        let epoch = hub.epoch(room: room)
        reply.value(
          Self.json(
            200,
            .object([
              "room": .string(room), "epoch": epoch.map(JSONValue.string) ?? .null,
              "messages": .array(kept.map(Self.message)),
            ])))
      case .failure(let error):
        reply.value(ServerAPIError.unavailable("cannot read the history: \(error)").response)
      }
    }
    return .later
  }

  static func message(_ m: ChatMessage) -> JSONValue {
    var fields: [String: JSONValue] = [
      "id": .number(Double(m.id)), "author": .string(m.author), "text": .string(m.text),
      "time": .string(rfc3339(milliseconds: m.time)),
    ]
    if m.isAction { fields["action"] = .bool(true) }
    return .object(fields)
  }

  private func info() -> HTTPResponse {
    let api = context.configuration.api
    let uptime = ContinuousClock.now - context.core.started
    let transports = context.hub.membersByTransport().mapValues { JSONValue.number(Double($0)) }
    let counts = context.hub.counts
    return Self.json(
      200,
      .object([
        "version": .string(api.version), "node": .string(api.nodeID),
        "connections": .object(transports), "members": .number(Double(counts.members)),
        "rooms": .number(Double(counts.rooms)), "uptimeSeconds": .number(Double(uptime.components.seconds)),
        "broker": .string(Self.brokerState(context.hub.broker.health)),
      ]))
  }

  private static func brokerState(_ health: BrokerHealth) -> String {
    switch health {
    case .ready: "ready"
    case .unavailable(_, let reason): "unavailable: \(reason)"
    }
  }

  /// Milliseconds since the epoch as RFC 3339 UTC with milliseconds.
  static func rfc3339(milliseconds: Int64) -> String {
    let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
    let millis = milliseconds - seconds * 1000
    return LogTimestamp(seconds: seconds, nanoseconds: Int32(millis) * 1_000_000).rfc3339
  }
}
