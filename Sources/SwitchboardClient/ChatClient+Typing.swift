extension ChatClient {
  /// Says whether this member is typing, for the others in the room who asked for typing
  /// indicators (docs/CLIENT.md, "Typing indicators"). Call it with `true` as the user types
  /// (every keystroke is fine: at most one signal a second leaves while typing) and with
  /// `false` when the field is cleared or left; sending a message ends it by itself.
  ///
  /// On ws/wss a `typing` frame (`active` true, then false once on stop); on tcp/tls a
  /// `/typing` line (the line dialect has no stop: the server ends the state 5 s after the
  /// last one). Nothing on UDP, nothing while disconnected (a typing state does not outlive
  /// its connection), and nothing unless the server said it speaks typing: ask for
  /// ``Feature/typing`` in ``Configuration/features``.
  public func setTyping(_ active: Bool) {
    let kick = state.withLock { $0.setTyping(active, now: .now) }
    kick?.yield()
  }

  /// What the server said it speaks, in its last answer to the features asked for
  /// (``Configuration/features``); `nil` before an answer, or when none were asked for.
  public var serverFeatures: ServerFeatures? { state.withLock { $0.typing.serverFeatures } }
}

extension ChatClient.Session {
  /// Says whether this member is typing; see ``ChatClient/setTyping(_:)``.
  public func setTyping(_ active: Bool) { client.setTyping(active) }
}

extension ChatClientState {
  /// The member typed or stopped: the writer's kick when a signal is to be written now.
  mutating func setTyping(_ active: Bool, now: ContinuousClock.Instant) -> AsyncStream<Void>.Continuation? {
    guard !isStopping, link.isReady, typing.set(active, now: now) else { return nil }
    return link.kick
  }

  /// The typing signal the writer sends next, if any.
  mutating func takeTypingWire() -> String? {
    link.isReady ? typing.takeWire() : nil
  }
}
