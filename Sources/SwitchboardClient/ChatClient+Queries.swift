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

  func ask(_ query: ChatQuery) throws(ChatClientError) {
    let (kick, error) = state.withLock { $0.ask(query) }
    if let error { throw error }
    kick?.yield()
  }
}
