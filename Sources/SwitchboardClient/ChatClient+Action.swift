extension ChatClient {
  /// Sends the `/me` action `text` to the room: others see `* NAME TEXT` on a line
  /// connection and a message with ``Message/isAction`` in the library (the web page and
  /// `switchboard chat` show it as `* NAME TEXT` too).
  ///
  /// As ``send(_:)``, on every transport: a `message` frame with `"action":true` on ws/wss,
  /// `/me TEXT` on tcp, tls and udp (a line break in `text` is sent as a space there). A
  /// server refuses an action that would read as presence (`has left`, `is now`), with the
  /// reason as ``ChatClientError/serverError``. A server older than actions on WebSocket
  /// shows it as a plain message.
  /// - Returns: The message's id (WebSocket), else `nil`.
  @discardableResult
  public func sendAction(_ text: String) async throws -> UInt64? {
    let limit = configuration.maxQueuedMessages
    return try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<UInt64?, any Error>) in
      let (kick, error) = state.withLock { s in s.enqueue(text, isAction: true, waiter: waiter, limit: limit)
      }
      if let error { waiter.resume(throwing: error) }
      kick?.yield()
    }
  }
}

extension ChatClient.Session {
  /// Sends an action; see ``ChatClient/sendAction(_:)``.
  @discardableResult
  public func sendAction(_ text: String) async throws -> UInt64? { try await client.sendAction(text) }
}
