import SwitchboardClient
import SwitchboardWire
import Synchronization

/// What `switchboard chat` does with a line typed or piped in: the command language of
/// ``ChatInput`` (the line dialect's, as `nc` users have it), carried out through the client
/// library on every transport. `/join` and `/nick` connect again in the new room or under
/// the new name (the library's clients keep their room and name for every reconnect).
enum ChatTyped {
  /// Where a pipe goes after a line.
  enum Next: Equatable {
    /// Read the next line on this client.
    case goOn
    /// Connect again: to `room` (`nil`: the URL's or the server's default) as `name`.
    case reconnect(room: String?, name: String)
    /// Stop reading (`/quit`).
    case quit
  }

  /// How a pipe's output shows a message: `AUTHOR: TEXT`, or `* AUTHOR ACTION` for `/me`,
  /// each escaped as the line dialect escapes (``LineEscape``) so that a text with a line
  /// break in it stays one line and cannot read as another author's or a notice.
  static func line(_ m: ChatClient.Message) -> String {
    m.isAction
      ? "* " + LineDialect.escape(m.author) + " " + LineDialect.escape(m.text)
      : LineDialect.escape(m.author) + ": " + LineDialect.escape(m.text)
  }

  /// A message of the answer to `/history` as `nc` shows it: `[ID] AUTHOR: TEXT` (``line(_:)``
  /// after its id).
  static func recent(_ m: ChatClient.Message) -> String {
    (m.id.map { "[\($0)] " } ?? "") + line(m)
  }

  /// The answer to `/who` as the line dialect words it: `* in ROOM (N): a, b`.
  static func members(room: String, names: [String]) -> String {
    "* in \(LineDialect.escape(room)) (\(names.count)): "
      + names.map { LineDialect.escape($0) }.joined(separator: ", ")
  }

  /// The answer to `/rooms` as the line dialect words it: `* rooms: dev (1), lobby (3)`.
  static func rooms(_ rooms: [ChatClient.RoomSummary]) -> String {
    "* rooms: " + rooms.map { "\(LineDialect.escape($0.name)) (\($0.members))" }.joined(separator: ", ")
  }

  /// The shutdown notice, as `nc` users see it: `* server is going away: REASON`, from the
  /// line dialect's own line or a WebSocket close 1001's reason.
  static func goingAway(_ reason: String) -> String {
    let words = "server is going away"
    return "* " + LineDialect.escape(reason.hasPrefix(words) ? reason : words + (reason.isEmpty ? "" : ": " + reason))
  }

  /// Carries out one piped line on `session`; answers (help, problems) are printed as the
  /// server's lines are, `* ` and `! `.
  /// - Throws: what sending a message threw (the pipe then stops with exit code 1).
  static func pipe(_ line: String, session: ChatClient.Session, room: String?, name: String) async throws
    -> Next
  {
    switch ChatInput.parse(line) {
    case .message(let text):
      try await session.send(text)
    case .empty:
      break
    case .join(let newRoom):
      return .reconnect(room: newRoom, name: name)
    case .nick(let newName):
      return .reconnect(room: room, name: newName)
    case .who:
      do { try await session.client.requestMembers() } catch { Output.print("! \(error)") }
    case .rooms:
      do { try await session.client.requestRooms() } catch { Output.print("! \(error)") }
    case .help:
      for help in ChatInput.helpLines { Output.print("* " + help) }
    case .quit:
      return .quit
    case .invalid(let problem):
      Output.print("! " + problem)
    case .action(let text):
      try await session.sendAction(text)
    case .history(let count):
      // A request asks for at least one message: `/history 0` (which `nc` answers with none)
      // shows the last one.
      do { try await session.client.requestHistory(limit: max(count ?? HistoryRequest.defaultCount, 1)) } catch {
        Output.print("! \(error)")
      }
    }
    return .goOn
  }
}

/// The name a terminal chat's next client is made with: read by the view model's maker
/// (any thread), changed by `/nick`.
final class ChatName: Sendable {
  private let current: Mutex<String>

  init(_ name: String) { current = Mutex(name) }

  var value: String {
    get { current.withLock { $0 } }
    set { current.withLock { $0 = newValue } }
  }
}
