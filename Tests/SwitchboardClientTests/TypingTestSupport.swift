import SwitchboardTestSupport

@testable import SwitchboardClient

/// What the typing tests share: a configuration that asks for typing, event matchers, and
/// a typist that keeps typing until a watcher sees it.
enum TypingTestSupport {
  /// ``ChatClient/Configuration/forTesting`` asking for ``ChatClient/Feature/typing``.
  static var configuration: ChatClient.Configuration {
    var configuration = ChatClient.Configuration.forTesting
    configuration.features = [.typing]
    return configuration
  }

  static func isFeatures(_ event: ChatClient.Event) -> Bool {
    if case .features = event { true } else { false }
  }

  static func isTyping(_ author: String, _ active: Bool) -> (ChatClient.Event) -> Bool {
    { event in
      if case .typing(_, author, active) = event { true } else { false }
    }
  }

  /// Keystrokes every 100 ms until `watcher` sees `typist` start (at most a second of them:
  /// the client's throttle).
  static func typeUntil(_ typist: ChatProbe, seenBy watcher: ChatProbe, from: Int) async throws {
    let author = typist.client.name
    try await eventually(timeout: ChatProbe.deadline, "\(author) typing, seen by \(watcher.client.name)") {
      typist.client.setTyping(true)
      return watcher.events.dropFirst(from).contains(where: isTyping(author, true))
    }
  }
}
