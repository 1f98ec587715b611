import SwitchboardWire

extension ChatClient {
  /// A room and how many members it has: one entry of ``Event/rooms(_:)``.
  public struct RoomSummary: Sendable, Hashable, Identifiable {
    /// The room's name.
    public var name: String
    /// How many members it has (on the server answering; `/rooms` counts that node's).
    public var members: Int
    /// The name: rooms are told apart by it.
    public var id: String { name }

    /// Creates a summary.
    public init(name: String, members: Int) {
      self.name = name
      self.members = members
    }
  }

  /// Asks the server who is in the room; the answer is an ``Event/members(room:names:)``
  /// event.
  ///
  /// On every transport: a `who` frame on ws/wss, `/who` on tcp, tls and udp. The request
  /// is written on the current connection once it is ready (after the history, on a
  /// WebSocket), else on the next one; one not answered before its connection was lost is
  /// asked again on the next. Asking again before a request was written asks once. A server
  /// too old to know the `who` frame answers with an ``Event/error(_:)`` of
  /// ``ChatClientError/unsupported`` instead.
  /// - Throws: ``ChatClientError/closed`` when the client stopped.
  public func requestMembers() async throws(ChatClientError) {
    try ask(.members)
  }

  /// Asks the server which rooms have members; the answer is a ``Event/rooms(_:)`` event.
  /// As ``requestMembers()``, with a `rooms` frame or `/rooms`. With tokens the server lists
  /// only the rooms the client's token allows.
  /// - Throws: ``ChatClientError/closed`` when the client stopped.
  public func requestRooms() async throws(ChatClientError) {
    try ask(.rooms)
  }

  /// Asks the server for the last `limit` kept messages of the room; the answer is a
  /// ``Event/recent(_:)`` event, which leaves the resume point where it is.
  ///
  /// On every transport: a `history` frame on ws/wss, `/history N` on tcp, tls and udp
  /// (the `[ID] NAME: TEXT` lines up to `* end of history …` are collected into one
  /// event; an answer the server cut at 512 KiB holds what it sent). Written, asked again
  /// and refused by an old server as ``requestMembers()``.
  /// - Parameter limit: from 1 to 10,000,000 (the most a room can keep); the answer holds
  ///   at most what the room keeps.
  /// - Throws: ``ChatClientError/invalidArgument(_:)`` for a limit out of range,
  ///   ``ChatClientError/closed`` when the client stopped.
  public func requestHistory(limit: Int = 20) async throws(ChatClientError) {
    guard (1...HistoryRequest.maxCount).contains(limit) else {
      throw .invalidArgument("a history request asks for 1 to \(HistoryRequest.maxCount) messages, not \(limit)")
    }
    try ask(.history(limit: limit))
  }

  func ask(_ query: ChatQuery) throws(ChatClientError) {
    let (kick, error) = state.withLock { $0.ask(query) }
    if let error { throw error }
    kick?.yield()
  }
}
