import SwitchboardWire

/// A message handed to ``ChatClient/send(_:)`` that is not yet confirmed.
struct ChatOutgoing {
  /// The `ref` (WebSocket) and identity of the send.
  var ref: String
  var text: String
  /// What goes on the wire: one JSON frame, one datagram, or one line (`msg:`, `emsg:` for a
  /// text with a line break, `/me` for an action), then the confirming `/who` when asked.
  var wire: [String]
  var waiter: CheckedContinuation<UInt64?, any Error>
  /// Handed to the transport on the current connection.
  var written = false
  /// The id the server gave it, seen in its own `message` frame before the `ack`.
  var seenID: UInt64?
  /// Written on a connection that was lost before the `ack`: the resumed history may
  /// hold it.
  var maybeDelivered = false
  /// Line dialect, ``ChatClient/LineSendCompletion/handled``: the `! …` line the server
  /// answered it with, before the `/who` reply that completes it.
  var rejection: String?
  /// A `/me` action (``ChatClient/sendAction(_:)``).
  var isAction = false
}

/// A waiter to resume after the lock is released.
enum ChatResume {
  case success(CheckedContinuation<UInt64?, any Error>, UInt64?)
  case failure(CheckedContinuation<UInt64?, any Error>, any Error)

  func run() {
    switch self {
    case .success(let waiter, let id): waiter.resume(returning: id)
    case .failure(let waiter, let error): waiter.resume(throwing: error)
    }
  }
}

/// Everything a ``ChatClient`` shares between its tasks, behind one lock: the send
/// queue, the resume point, the current connection and its liveness. Mutating methods
/// return what to do after unlocking (events to yield, waiters to resume).
struct ChatClientState {
  /// Where the client is in its life. Changes only through ``ChatClient/run(isolation:_:)``
  /// (`idle` → `running`), ``ChatClient/suspend()``/``ChatClient/resume()`` (`running` ⇄
  /// `suspended`), ``ChatClient/close()`` (anything but `stopped` → `stopping`) and the end of
  /// the connection loop (→ `stopped`); see ChatClientState+Lifecycle.swift.
  enum Phase {
    /// Made, not yet run.
    case idle
    /// Connecting, connected, or waiting to reconnect.
    case running
    /// Running, but the app asked for no connection (``ChatClient/suspend()``): sends wait.
    case suspended
    /// Closing: the loop ends and the event stream finishes.
    case stopping
    /// The loop ended.
    case stopped
  }

  let scheme: ChatEndpoint.Scheme
  /// The name this client asks for (trimmed).
  let requestedName: String
  /// This client's name as the server shows it: the requested one until the server says
  /// otherwise (`alice (2)` when `alice` is taken in the room; docs/CLIENT.md). It decides
  /// ``ChatClient/Message/isMine``.
  var me: String
  /// The room messages are reported in when the server does not say.
  let room: String
  /// Whether line-dialect sends complete on the server's reply to a `/who` after them
  /// (``ChatClient/LineSendCompletion/handled``) rather than once written.
  let confirmsLines: Bool

  var phase = Phase.idle
  var queue: [ChatOutgoing] = []
  var nextRef: UInt64 = 0
  /// Where the client's view of the room stands: fresh, or resuming after `lastID` (a
  /// connect was answered before, or a resume point was given; ChatResumeState.swift).
  var resumption = ChatResumeState.fresh(lastID: nil, epoch: nil)
  /// The highest message id delivered (WebSocket).
  var lastID: UInt64? {
    get { resumption.lastID }
    set { resumption.lastID = newValue }
  }
  /// The room history's epoch last reported (WebSocket).
  var epoch: String? {
    get { resumption.epoch }
    set { resumption.epoch = newValue }
  }
  /// The network path as last reported (``ChatClient/networkPathChanged(_:)``).
  var path = ChatPathTracker()

  /// The current connection's life, one value (ChatLink.swift): none, handshaking, ready
  /// (with its liveness), or refused for good. Changed only through its checked transitions.
  var link = ChatLink.none
  /// Requests made by ``ChatClient/requestMembers()`` and ``ChatClient/requestRooms()`` not
  /// yet written (ChatClientState+Queries.swift).
  var queries: [ChatQuery] = []
  /// A token refresh (`auth:TOKEN` or a `refresh` frame) the writer sends next
  /// (ChatClient+Token.swift).
  var pendingRefresh: String?
  /// Whether a token provider can make a new token (``ChatClient/Configuration/tokenProvider``):
  /// then a connection closed because its token ran out is reconnected, not final.
  var renewsTokens = false
  /// The replies the lines written on this connection wait for, oldest first.
  var expectedReplies: [ChatExpectedReply] = []
  /// The messages of a history request's answer received so far (it may come in parts).
  var recentSoFar: [ChatClient.Message] = []
  /// Feature negotiation and this member's typing (ChatTypingState.swift).
  var typing: ChatTypingState

  init(
    scheme: ChatEndpoint.Scheme, me: String, room: String, confirmsLines: Bool = false,
    features: Set<ChatClient.Feature> = []
  ) {
    self.typing = ChatTypingState(requested: features, scheme: scheme)
    self.scheme = scheme
    self.requestedName = me
    self.me = me
    self.room = room
    self.confirmsLines = confirmsLines && (scheme == .tcp || scheme == .tls)
  }

  /// The line that follows each message when ``confirmsLines``: every line server answers
  /// it, only to the sender.
  static let confirmation = "/who"

  /// Whether `line` is the server's answer to ``confirmation``: `* in ROOM (N): NAMES`.
  static func isConfirmation(_ line: String) -> Bool {
    line.hasPrefix("* ") && ChatWire.members(inReply: String(line.dropFirst(2))) != nil
  }

  /// Whether `line` answers the hello's `/join ROOM` on a line connection: the member is in
  /// `room` (`* you are now in ROOM (N members)`, `* you are already in ROOM`), or the join
  /// failed with an error that is no refusal (`! too many rooms …`: the writer goes on as it
  /// would without the wait). A `! name is fixed by your token` answers the `iam:` before it.
  static func answersJoin(_ line: String, room: String) -> Bool {
    let room = RoomName.canonical(room)
    if line.hasPrefix("* you are now in \(room) (") || line == "* you are already in \(room)" { return true }
    return line.hasPrefix("! ") && !line.hasPrefix("! name is fixed")
  }

  /// The oldest message written and awaiting its ``confirmation`` reply.
  private var awaitingConfirmation: Int? {
    confirmsLines ? queue.firstIndex(where: { $0.written }) : nil
  }

  /// What a send or request made after the client stopped fails with: the refusal that
  /// stopped it, if one did, else ``ChatClientError/closed``.
  var stoppedError: ChatClientError {
    link.refusal.map { .refused($0) } ?? .closed("the client is closed")
  }

  var isStopping: Bool {
    switch phase {
    case .stopping, .stopped: true
    case .idle, .running, .suspended: false
    }
  }

  // MARK: Sending

  mutating func enqueue(
    _ text: String, isAction: Bool = false, waiter: CheckedContinuation<UInt64?, any Error>, limit: Int
  ) -> (AsyncStream<Void>.Continuation?, ChatClientError?)
  {
    if isStopping { return (nil, stoppedError) }
    if queue.count >= limit {
      return (nil, .queueFull("\(queue.count) messages are waiting (limit \(limit))"))
    }
    nextRef += 1
    let ref = "c\(nextRef)"
    let wire: [String]
    switch (scheme, isAction) {
    case (.ws, _), (.wss, _): wire = [ChatWire.messageFrame(text: text, ref: ref, isAction: isAction)]
    case (.tcp, false), (.tls, false): wire = ChatWire.lineMessages(text) + (confirmsLines ? [Self.confirmation] : [])
    case (.tcp, true), (.tls, true): wire = [ChatWire.actionLine(text)] + (confirmsLines ? [Self.confirmation] : [])
    case (.udp, false): wire = ["msg:" + text]
    case (.udp, true): wire = [ChatWire.actionLine(text)]
    }
    queue.append(ChatOutgoing(ref: ref, text: text, wire: wire, waiter: waiter, isAction: isAction))
    typing.messageSent()
    return (link.isReady ? link.kick : nil, nil)
  }

  /// The next message to write on the current connection.
  mutating func nextToWrite() -> (ref: String, text: String, wire: [String], isAction: Bool)? {
    guard link.isReady, let i = queue.firstIndex(where: { !$0.written }) else { return nil }
    queue[i].written = true
    if confirmsLines { expectedReplies.append(.confirmation) }
    return (queue[i].ref, queue[i].text, queue[i].wire, queue[i].isAction)
  }

  /// A line-dialect message is on the socket: that is its completion.
  mutating func written(ref: String) -> ChatResume? {
    guard let i = queue.firstIndex(where: { $0.ref == ref }) else { return nil }
    return .success(queue.remove(at: i).waiter, nil)
  }

  /// The connection is gone: messages it confirmed complete, the rest go back in line.
  mutating func connectionLost() -> [ChatResume] {
    link.lost()
    // A refresh belongs to the connection whose token was running out; the next one
    // connects with a token of its own.
    pendingRefresh = nil
    // The next connection asks for the name again and may get another.
    me = requestedName
    requeueQueries()
    var resumes: [ChatResume] = []
    var kept: [ChatOutgoing] = []
    for var item in queue {
      if item.written, let id = item.seenID {
        resumes.append(.success(item.waiter, id))
        continue
      }
      if item.written {
        item.written = false
        item.maybeDelivered = scheme == .ws || scheme == .wss
      }
      kept.append(item)
    }
    queue = kept
    return resumes
  }

  /// The client stopped: every waiting send fails with `error`.
  mutating func failAll(_ error: ChatClientError) -> [ChatResume] {
    let resumes = queue.map { ChatResume.failure($0.waiter, error) }
    queue = []
    return resumes
  }

  // MARK: Receiving

  /// Something arrived: the peer is alive.
  mutating func heard() -> ChatClient.Event? {
    link.heard(at: .now) ? .viabilityChanged(true) : nil
  }

  /// Applies one text unit from the server.
  mutating func receive(_ text: String, events: inout [ChatClient.Event], resumes: inout [ChatResume]) -> Bool {
    var kickWriter = false
    if scheme != .ws && scheme != .wss, let refusal = ChatRefusal.line(text, room: room), !isRenewable(refusal) {
      // Final: the connection loop stops after this connection (ChatClient+Driver.swift).
      link.refuse(refusal)
      return false
    }
    if case .handshaking = link, scheme == .tcp || scheme == .tls, Self.answersJoin(text, room: room) {
      // The hello's `/join` is answered: messages written from now on land in the room.
      kickWriter = link.answered()
    }
    let inbound: ChatWire.Inbound
    switch scheme {
    case .ws, .wss: inbound = ChatWire.decodeJSON(text, room: room, me: me)
    case .tcp, .tls, .udp: inbound = ChatWire.decodeLine(text, room: room, me: me)
    }
    switch inbound {
    case .message(let m):
      if let id = m.id {
        if let last = lastID, id <= last { return false }
        lastID = id
        if m.isMine, let i = queue.firstIndex(where: { $0.written && $0.seenID == nil && $0.text == m.text }) {
          queue[i].seenID = id
        }
      }
      events.append(.message(m))
    case .history(let messages, let newEpoch, let recovered):
      var gap = !recovered
      let since = lastID
      if let newEpoch, let epoch, newEpoch != epoch {
        // Another incarnation of the room: its ids start over.
        lastID = nil
        gap = true
      }
      if let newEpoch { epoch = newEpoch }
      var fresh: [ChatClient.Message] = []
      fresh.reserveCapacity(messages.count)
      for m in messages {
        if let id = m.id {
          if let last = lastID, id <= last { continue }
          lastID = id
        }
        fresh.append(m)
        if m.isMine, let i = queue.firstIndex(where: { $0.maybeDelivered && $0.text == m.text }) {
          // Sent on the lost connection and stored: complete it instead of sending twice.
          resumes.append(.success(queue.remove(at: i).waiter, m.id))
        }
      }
      for i in queue.indices { queue[i].maybeDelivered = false }
      if gap && resumption.isResuming { events.append(.gap(since: since, epoch: newEpoch)) }
      events.append(.history(messages: fresh, recovered: recovered, epoch: newEpoch))
      resumption.answered()
      kickWriter = link.answered()
    case .recent(let messages, let more):
      // A view the app asked for: the resume point (lastID, epoch) stays where it is.
      if let answer = takeRecent(messages, end: !more) { events.append(.recent(answer)) }
    case .historyLine(let m):
      if awaitsRecent {
        _ = takeRecent([m], end: false)
      } else {
        // Not asked for by this client (a line the app wrote itself): shown as it came.
        events.append(.notice(LineEscape.unescape(text)))
      }
    case .presence(let p):
      events.append(.presence(p))
    case .features(let features):
      events.append(typing.answered(features))
    case .typing(let typingRoom, let author, let active):
      events.append(.typing(room: typingRoom, author: author, active: active))
    case .ack(let ref, let id):
      if let i = queue.firstIndex(where: { $0.ref == ref }) {
        resumes.append(.success(queue.remove(at: i).waiter, id))
      }
    case .color:
      break
    case .name(let name):
      me = name
    case .notice(let line) where ChatWire.confirmedName(in: line) != nil:
      me = ChatWire.confirmedName(in: line)!
      events.append(.notice(line))
    case .rejected(let ref, let code, let message):
      let error = code == "not_stored" ? ChatClientError.notStored(message) : .serverError("\(code): \(message)")
      if let i = queue.firstIndex(where: { $0.ref == ref }) {
        resumes.append(.failure(queue.remove(at: i).waiter, error))
      }
      events.append(.error(error))
    case .serverError(let code, let message):
      if code == "unknown_type", typing.negotiation == .asked {
        // A server older than negotiation: the `features` frame is the first this client
        // sends, so the first `unknown_type` answers it. Not a failure: it speaks none.
        events.append(typing.answered(.none))
      } else if code == "going_away" {
        events.append(.reconnectSuggested(reason: message))
      } else if code == "unknown_type", let query = takeUnansweredQuery() {
        events.append(.error(.unsupported("the server does not answer \(query.frameType) (\(code): \(message))")))
      } else if code == "not_stored" {
        // "message N was not stored: …"
        let words = message.split(separator: " ")
        if words.count > 1, let id = UInt64(words[1]), let i = queue.firstIndex(where: { $0.seenID == id }) {
          resumes.append(.failure(queue.remove(at: i).waiter, ChatClientError.notStored(message)))
        }
        events.append(.error(.notStored(message)))
      } else {
        events.append(.error(.serverError("\(code): \(message)")))
      }
    case .members(let replyRoom, let names):
      if takeMembersReply() == .confirmation, let i = awaitingConfirmation {
        let item = queue.remove(at: i)
        if let rejection = item.rejection {
          resumes.append(.failure(item.waiter, ChatClientError.serverError(rejection)))
        } else {
          resumes.append(.success(item.waiter, nil))
          events.append(
            .message(ChatClient.Message(room: room, author: me, text: item.text, isMine: true, isAction: item.isAction)))
        }
      } else {
        events.append(.members(room: replyRoom, names: names))
      }
    case .rooms(let rooms):
      if takeRoomsReply() { events.append(.rooms(rooms)) }
    case .notice(let line) where ChatWire.lineFeatures(inNotice: line) != nil:
      events.append(typing.answered(ChatWire.lineFeatures(inNotice: line)!))
    case .notice(let line) where typing.linesEnabled && ChatWire.typingAuthor(inNotice: line) != nil:
      events.append(.typing(room: room, author: ChatWire.typingAuthor(inNotice: line)!, active: true))
    case .errorLine(let line) where typing.negotiation == .asked && ChatWire.refusesTyping(line):
      // A line server older than typing answered the hello's `/typing on`: it speaks none.
      events.append(typing.answered(.none))
    case .notice(let line) where awaitsRecent && ChatWire.endsHistory(line):
      if let answer = takeRecent([], end: true) { events.append(.recent(answer)) }
    case .notice(let line):
      if line.hasPrefix("* rooms:"), link.takeProbeReply() {
        // The answer to a heartbeat probe: swallowed.
      } else if line.hasPrefix("* server is going away") {
        events.append(.reconnectSuggested(reason: String(line.dropFirst(2))))
      } else {
        events.append(.notice(line))
      }
    case .errorLine(let line):
      if let i = awaitingConfirmation, queue[i].rejection == nil { queue[i].rejection = line }
      events.append(.error(.serverError(line)))
    case .echo(let echoed):
      if scheme == .udp, let i = queue.firstIndex(where: { $0.written && $0.wire.first == echoed }) {
        let item = queue.remove(at: i)
        resumes.append(.success(item.waiter, nil))
        events.append(
            .message(ChatClient.Message(room: room, author: me, text: item.text, isMine: true, isAction: item.isAction)))
      }
    case .ignored:
      break
    }
    return kickWriter
  }

  // MARK: Heartbeat

  enum HeartbeatAction {
    case none, probe, dead, notViable, notViableAndDead
  }

  mutating func heartbeatTick(_ heartbeat: ChatClient.Heartbeat) -> HeartbeatAction {
    link.heartbeatTick(heartbeat, now: .now, countsProbeReplies: scheme != .ws && scheme != .wss)
  }
}
