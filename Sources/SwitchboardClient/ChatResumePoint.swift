/// Where a client's view of a room ends: the room, the last message id it delivered and the
/// room history's epoch. An app persists ``ChatClient/resumePoint`` (it is `Codable`) and
/// gives it to the next client (``ChatClient/init(endpoint:name:room:configuration:resumingFrom:)``),
/// whose first connect then asks for what came after, as a reconnect does: the missed
/// messages arrive exactly once, and ``ChatClient/Event/gap(since:epoch:)`` says when the
/// server cannot vouch that none is missing (the room's history was reset: another epoch;
/// or the messages fell out of what it keeps).
///
/// WebSocket only: the line and UDP dialects carry no ids, so a client on them has no resume
/// point (``ChatClient/resumePoint`` is `nil`) and ignores one it is given.
///
/// ```swift
/// let saved = try JSONEncoder().encode(client.resumePoint)       // before the app goes away
/// let point = try JSONDecoder().decode(ChatResumePoint?.self, from: saved)
/// let next = try ChatClient(url: url, name: "ada", room: "dev", resumingFrom: point)
/// ```
public struct ChatResumePoint: Sendable, Hashable, Codable {
  /// The room (a point is used only by a client joining the same room).
  public var room: String
  /// The highest message id delivered, `nil` when none was (the next client then gets the
  /// whole history the server keeps, as missed).
  public var lastMessageID: UInt64?
  /// The room history's epoch those ids belong to (`nil` when the server never said).
  public var epoch: String?

  /// Creates a resume point.
  public init(room: String, lastMessageID: UInt64?, epoch: String?) {
    self.room = room
    self.lastMessageID = lastMessageID
    self.epoch = epoch
  }
}

extension ChatClient {
  /// What to persist to pick up where this client is now: `nil` until the server answered a
  /// first WebSocket connect (or, for a client made ``init(endpoint:name:room:configuration:resumingFrom:)``
  /// with a point, that point until then), and always on the line and UDP dialects.
  ///
  /// It covers what the client put in its event stream: read it after handling the events you
  /// want kept, and save it when the app leaves the foreground.
  public var resumePoint: ChatResumePoint? { state.withLock { $0.resumePoint } }
}

extension ChatClientState {
  /// The point a client with this state resumes from (``ChatClient/resumePoint``).
  var resumePoint: ChatResumePoint? {
    guard scheme == .ws || scheme == .wss, resumption.isResuming else { return nil }
    return ChatResumePoint(room: room, lastMessageID: lastID, epoch: epoch)
  }

  /// Starts from `point` as if a connection had delivered up to it: the first connect then
  /// asks for what came after (`since`/`epoch`), drops what `point` covers, and reports a
  /// gap when the server cannot vouch. Ignored on dialects without ids and for another room.
  mutating func seed(_ point: ChatResumePoint) {
    guard scheme == .ws || scheme == .wss, point.room == room else { return }
    resumption = .resuming(lastID: point.lastMessageID, epoch: point.epoch)
  }
}
