import SwitchboardClient

extension ExitCode {
  /// The server refused (or would refuse) the request in a way retrying cannot change: a bad
  /// room or name, no token or a refused one, a room outside the token, a `4xx` answer.
  static let refused: Int32 = 2
}

/// How `chat` and `send` end on a client error: the words a person reads (the library's
/// descriptions, never a type's name) and the documented exit code (2 refused, 1 anything
/// else: could not reach, find or deliver).
enum CLIFailure {
  /// The exit code for `error`.
  static func exitCode(_ error: ChatClientError) -> Int32 {
    error == .refused ? ExitCode.refused : ExitCode.failure
  }

  /// `error` for people: `refused: REASON` for a refusal, else its description.
  static func describe(_ error: ChatClientError) -> String {
    error == .refused ? "refused: \(error.description)" : error.description
  }

  /// Any error a chat session threw, for people.
  static func describe(_ error: any Error) -> String {
    (error as? ChatClientError).map { describe($0) } ?? "\(error)"
  }

  /// The exit code for any error a chat session threw.
  static func exitCode(_ error: any Error) -> Int32 {
    (error as? ChatClientError).map { exitCode($0) } ?? ExitCode.failure
  }
}

/// When `chat --pipe` stops trying to reach its server: before the first connection, at the
/// first failure once `--wait` has passed (at the first failure with the default 0, as fast
/// as `send`); after a connection, after ``reconnectAttempts`` attempts in a row.
struct ChatPipeLimits {
  /// Reconnect attempts in a row after a connection was up.
  static let reconnectAttempts = 8

  private let deadline: ContinuousClock.Instant
  private var connectedOnce = false
  private var last: ChatClientError?

  init(wait: Duration, now: ContinuousClock.Instant = .now) {
    deadline = now + wait
  }

  /// A connection is up.
  mutating func connected() {
    connectedOnce = true
    last = nil
  }

  /// The client reported `error` (a failed connect, or what the server said): the reason
  /// printed when the pipe gives up.
  mutating func failed(_ error: ChatClientError) { last = error }

  /// The client is about to wait for `attempt` (an attempt failed at `now`): the error to
  /// give up with, or `nil` to let it try.
  func givesUp(attempt: Int, at now: ContinuousClock.Instant) -> ChatClientError? {
    if connectedOnce {
      guard attempt > Self.reconnectAttempts else { return nil }
      return last ?? .gaveUp
    }
    guard now >= deadline else { return nil }
    return last ?? .connectFailed("could not reach the server")
  }
}
