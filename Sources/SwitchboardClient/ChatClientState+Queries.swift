/// A question a ``ChatClient`` asks the server for the app: who is in the room, which rooms
/// exist.
enum ChatQuery: Sendable, Hashable {
  /// ``ChatClient/requestMembers()``: `/who`, or a `who` frame.
  case members
  /// ``ChatClient/requestRooms()``: `/rooms`, or a `rooms` frame.
  case rooms
  /// ``ChatClient/requestHistory(limit:)``: `/history N`, or a `history` frame.
  case history(limit: Int)

  /// The JSON protocol's frame type.
  var frameType: String {
    switch self {
    case .members: "who"
    case .rooms: "rooms"
    case .history: "history"
    }
  }

  /// The request as written on `scheme`.
  func wire(on scheme: ChatEndpoint.Scheme) -> String {
    switch (self, scheme) {
    case (.history(let limit), .ws), (.history(let limit), .wss): #"{"type":"history","data":{"limit":\#(limit)}}"#
    case (_, .ws), (_, .wss): #"{"type":"\#(frameType)"}"#
    case (.members, _): "/who"
    case (.rooms, _): "/rooms"
    case (.history(let limit), _): "/history \(limit)"
    }
  }
}

/// What a line written on a connection waits for. The server answers a connection's
/// requests in order, so the replies of one kind come in the order these were written; the
/// heartbeat's `/rooms` probe is counted apart (``ChatOpenConnection/probeRepliesExpected``), its
/// reply being a `/rooms` reply like any other.
enum ChatExpectedReply: Sendable, Hashable {
  /// The `/who` that follows a message (``ChatClient/LineSendCompletion/handled``): its reply
  /// completes the send.
  case confirmation
  /// A request of the app's: its reply is an event.
  case query(ChatQuery)
}

/// The members and rooms requests: queued until a connection is ready, written by the
/// writer (so that they take their place among the confirmations in the order the server
/// sees them), matched with their replies.
extension ChatClientState {
  /// Asks `query` on the current connection, or on the next one. A request already waiting
  /// to be written is not queued twice.
  mutating func ask(_ query: ChatQuery) -> (AsyncStream<Void>.Continuation?, ChatClientError?) {
    if isStopping { return (nil, stoppedError) }
    if !queries.contains(query) { queries.append(query) }
    return (link.isReady ? link.kick : nil, nil)
  }

  /// The next request to write on the current connection, now expected to be answered.
  mutating func nextQueryToWrite() -> String? {
    guard link.isReady, !queries.isEmpty else { return nil }
    let query = queries.removeFirst()
    expectedReplies.append(.query(query))
    return query.wire(on: scheme)
  }

  /// The connection is gone: requests it did not answer are asked again on the next one;
  /// the replies it owed are owed no more.
  mutating func requeueQueries() {
    for case .query(let query) in expectedReplies where !queries.contains(query) { queries.append(query) }
    expectedReplies = []
    recentSoFar = []
  }

  /// A part of the answer to a history request arrived (a `[ID] …` line, a `requested`
  /// `history` frame), or its end (`end`: the line dialect's `* end of history …`, `* more
  /// history …` or `* no kept messages …`, the frame without `more`): the whole answer once
  /// it ended, `nil` before. `nil` too, and nothing kept, when no history request waits (a
  /// line the app wrote itself): the caller shows it as it would have.
  mutating func takeRecent(_ messages: [ChatClient.Message], end: Bool) -> [ChatClient.Message]? {
    guard let i = expectedReplies.firstIndex(where: { if case .query(.history) = $0 { true } else { false } }) else {
      return nil
    }
    recentSoFar += messages
    guard end else { return nil }
    expectedReplies.remove(at: i)
    defer { recentSoFar = [] }
    return recentSoFar
  }

  /// Whether a history request waits for its answer.
  var awaitsRecent: Bool {
    expectedReplies.contains { if case .query(.history) = $0 { true } else { false } }
  }

  /// A reply to `/who` (or a `members` frame) arrived: what it answers, the oldest of the
  /// confirmations and members requests written; `nil` when nothing waited for it.
  mutating func takeMembersReply() -> ChatExpectedReply? {
    guard let i = expectedReplies.firstIndex(where: { $0 == .confirmation || $0 == .query(.members) }) else {
      return nil
    }
    return expectedReplies.remove(at: i)
  }

  /// A reply to `/rooms` (or a `rooms` frame) arrived: whether it is an event. It answers the
  /// oldest rooms request first, else a heartbeat probe (swallowed). Which of a probe and a
  /// request written about the same time was answered first does not matter: both ask the
  /// same, and each reply is used once.
  mutating func takeRoomsReply() -> Bool {
    if let i = expectedReplies.firstIndex(of: .query(.rooms)) {
      expectedReplies.remove(at: i)
      return true
    }
    return !link.takeProbeReply()
  }

  /// An `unknown_type` error arrived (a server older than the `who` and `rooms` frames):
  /// the oldest request written, which it answers, if any.
  mutating func takeUnansweredQuery() -> ChatQuery? {
    guard let i = expectedReplies.firstIndex(where: { if case .query = $0 { true } else { false } }),
      case .query(let query) = expectedReplies.remove(at: i)
    else { return nil }
    return query
  }
}
