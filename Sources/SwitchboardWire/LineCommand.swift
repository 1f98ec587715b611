import SwitchboardHTTP

/// One line of the TCP/UDP line dialect, parsed.
public enum LineCommand: Equatable, Sendable {
  /// `iam:NAME` (seed protocol): set the name.
  case iam(String)
  /// `auth:TOKEN`: a signed token (clients send it as their first line on TCP/TLS); never a
  /// message, so a token is never broadcast, even by a server that does not check tokens.
  case auth(String)
  /// `/nick NAME`.
  case nick(String)
  /// `/join ROOM`.
  case join(String)
  case who
  case rooms
  /// `/history [N]`.
  case history(Int?)
  /// `/since ID`.
  case since(UInt64)
  /// `/me ACTION`.
  case me(String)
  case help
  case quit
  /// `/ok CODE` (UDP): proves the sender's address with the code the server offered
  /// (``DatagramProof``); `/ok` alone asks for a code. The argument as sent, maybe empty.
  case prove(String)
  /// `/typing` (the member is typing: relayed like a JSON `typing` frame with `active`
  /// true, ending on its own), `/typing on` or `/typing off` (whether the member sees
  /// `* NAME is typing` notices). TCP and TLS only: the UDP port answers it as an unknown
  /// command.
  case typing(TypingLine)
  /// A chat message (plain text, `msg:TEXT`, `//text` for a text starting with `/`, or
  /// `emsg:TEXT` for a text written with the line escapes, ``LineEscape``).
  case message(String)
  /// An empty line, or `msg:` with nothing but spaces: ignored (nothing is published).
  case empty
  /// A malformed command, with the error line to answer (without the `! ` prefix).
  case invalid(String)

  /// The help text, one line per command.
  public static let helpLines = [
    "commands:",
    "  iam:NAME / /nick NAME   set your name",
    "  msg:TEXT                send TEXT (plain lines are messages too)",
    "  emsg:TEXT               send TEXT written with escapes (\\n a line break, \\\\ a \\)",
    "  /join ROOM              move to ROOM",
    "  /who                    who is in this room",
    "  /rooms                  rooms with members",
    "  /history [N]            the last N messages (default 20)",
    "  /since ID               every kept message after ID",
    "  /me ACTION              * NAME ACTION",
    "  //TEXT                  send a message that starts with /",
    "  /help                   this list",
    "  /quit                   leave",
    "  /ok CODE                UDP: send back the code offered, to receive the room",
  ]

  /// Parses one line (without its terminator).
  public static func parse(_ line: String) -> LineCommand {
    if let name = after("iam:", in: line) { return .iam(name) }
    if let token = after("auth:", in: line) { return .auth(token) }
    if let text = after("msg:", in: line) { return isBlank(text) ? .empty : .message(text) }
    // One message whatever line breaks it holds, as over WebSocket and UDP: the client
    // library sends a text with a line break (or another escaped character) this way.
    if let text = after("emsg:", in: line) {
      let message = LineEscape.unescape(text)
      return isBlank(message) ? .empty : .message(message)
    }
    if isBlank(line) { return .empty }
    guard let body = after("/", in: line) else { return .message(line) }
    if let text = after("/", in: body) { return .message("/" + text) }
    // Split at the first space byte: a space followed by a combining mark is one Character,
    // so a Character-wise split missed it (found by fuzz-line).
    let nameEnd = body.utf8.firstIndex(of: UInt8(ascii: " ")) ?? body.utf8.endIndex
    let name = String(decoding: body.utf8[..<nameEnd], as: UTF8.self).lowercased()
    let argument = String(String(decoding: body.utf8[nameEnd...], as: UTF8.self).trimmingSpacesAndTabs())
    switch name {
    case "nick", "name":
      return argument.isEmpty ? .invalid("usage: /nick NAME") : .nick(argument)
    case "join":
      guard let room = RoomName.validate(argument) else {
        return .invalid("usage: /join ROOM (1-64 letters, digits, - _ .)")
      }
      return .join(room)
    case "who": return .who
    case "rooms": return .rooms
    case "history":
      if argument.isEmpty { return .history(nil) }
      guard let n = Int(argument), n >= 0 else { return .invalid("usage: /history [N]") }
      return .history(n)
    case "since":
      guard let id = UInt64(argument) else { return .invalid("usage: /since ID") }
      return .since(id)
    case "me":
      return argument.isEmpty ? .invalid("usage: /me ACTION") : .me(argument)
    case "help", "?": return .help
    case "quit", "exit", "bye": return .quit
    case "ok": return .prove(argument)
    case "typing":
      switch argument.lowercased() {
      case "": return .typing(.signal)
      case "on": return .typing(.on)
      case "off": return .typing(.off)
      default: return .invalid("usage: /typing [on|off]")
      }
    default:
      return .invalid("unknown command /\(name) (try /help)")
    }
  }

  /// What a `/typing` line asks for.
  public enum TypingLine: Equatable, Sendable {
    /// `/typing`: the member is typing now.
    case signal
    /// `/typing on`: show `* NAME is typing` notices.
    case on
    /// `/typing off`: stop showing them.
    case off
  }

  /// Nothing but spaces and tabs (or nothing): not a message.
  private static func isBlank(_ text: String) -> Bool { text.allSatisfy { $0 == " " || $0 == "\t" } }

  /// What follows the ASCII `prefix` in `line`, compared byte for byte: `hasPrefix` compares
  /// characters, so a combining mark after the colon (`msg:\u{301}x`) would hide the prefix
  /// (found by fuzz-line).
  private static func after(_ prefix: String, in line: String) -> String? {
    guard line.utf8.starts(with: prefix.utf8) else { return nil }
    return String(decoding: line.utf8.dropFirst(prefix.utf8.count), as: UTF8.self)
  }
}
