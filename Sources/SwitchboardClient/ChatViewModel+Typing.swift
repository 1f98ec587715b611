/// Who is typing (``ChatViewModel/typingMembers``), and the user's own typing.
extension ChatViewModel {
  /// The user typed in the message field: tells the room (``ChatClient/setTyping(_:)``, at
  /// most one signal a second leaves). Call it on every change of the field's text; with
  /// an empty field it is ``userStoppedTyping()``.
  /// - Parameter text: The field's text now (`nil`: not known, typing).
  public func userIsTyping(_ text: String? = nil) {
    if let text, text.isEmpty {
      userStoppedTyping()
    } else {
      client?.setTyping(true)
    }
  }

  /// The user cleared or left the message field: tells the room typing stopped. Sending a
  /// message stops it by itself.
  public func userStoppedTyping() {
    client?.setTyping(false)
  }

  func typingStarted(_ author: String) {
    typingUntil[author] = .now + typingExpiry
    publishTyping()
    armTypingExpiry()
  }

  func typingStopped(_ author: String) {
    guard typingUntil.removeValue(forKey: author) != nil else { return }
    publishTyping()
  }

  func clearTyping() {
    typingExpiryTask?.cancel()
    typingExpiryTask = nil
    guard !typingUntil.isEmpty else { return }
    typingUntil = [:]
    publishTyping()
  }

  private func publishTyping() {
    pending.typing = typingUntil.keys.sorted()
    schedule()
  }

  /// One task that wakes at the earliest end and drops every name that ran out (a name
  /// started again meanwhile has a later end and stays).
  private func armTypingExpiry() {
    guard typingExpiryTask == nil else { return }
    typingExpiryTask = Task { [weak self] in
      while let self, let next = self.typingUntil.values.min() {
        try? await Task.sleep(until: next, clock: .continuous)
        if Task.isCancelled { return }
        let now = ContinuousClock.now
        let before = self.typingUntil.count
        self.typingUntil = self.typingUntil.filter { $0.value > now }
        if self.typingUntil.count != before { self.publishTyping() }
      }
      self?.typingExpiryTask = nil
    }
  }
}
