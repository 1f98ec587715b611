import SwitchboardWire

/// What a person typed into a chat: a message or one of the slash commands, parsed by the
/// line dialect's own parser (``LineCommand``), so that `switchboard chat`, an app and the
/// web page understand `/join`, `/who`, `/rooms`, `/nick`, `/me`, `/history`, `/help` and
/// `/quit` as `nc` users' server does (docs/PROTOCOLS.md, "The command language").
///
/// Only a line that starts with `/` is a command; everything else (`iam:`, `msg:` included)
/// is sent as typed. `//text` sends `/text`.
///
/// ```swift
/// switch ChatInput.parse(draft) {
/// case .message(let text): try await client.send(text)
/// case .who: try await client.requestMembers()
/// case .help: ChatInput.helpLines.forEach { show($0) }
/// default: …
/// }
/// ```
public enum ChatInput: Equatable, Sendable {
  /// A message to send, exactly this text (`//text` arrives here as `/text`).
  case message(String)
  /// `/me ACTION`: an action, shown as `* NAME ACTION`.
  case action(String)
  /// `/join ROOM` (a valid room name, in its NFC spelling): move to ROOM.
  case join(String)
  /// `/nick NAME` (or `/name NAME`): change the name.
  case nick(String)
  /// `/who`: who is in this room.
  case who
  /// `/rooms`: the rooms with members.
  case rooms
  /// `/history [N]`: the last N kept messages (the server's default, 20, when `nil`).
  case history(Int?)
  /// `/help` (or `/?`): the command list, ``helpLines``.
  case help
  /// `/quit` (or `/exit`, `/bye`): leave.
  case quit
  /// Nothing to send: an empty line, or spaces only (refused, not sent as a message).
  case empty
  /// A command the front door does not run, or one used wrongly: `problem` is the line to
  /// show (the server's own wording, without its `! `), e.g. `usage: /join ROOM (1-64
  /// letters, digits, - _ .)` or `unknown command /x (try /help)`.
  case invalid(String)

  /// One row of the command table: what to type and what it does.
  public struct Command: Sendable, Hashable {
    /// What to type, e.g. `/join ROOM`.
    public var usage: String
    /// What it does.
    public var summary: String

    /// A row of the table.
    public init(usage: String, summary: String) {
      self.usage = usage
      self.summary = summary
    }
  }

  /// The commands every front door (the terminal chat, an app, the web page) understands,
  /// in the order ``helpLines`` lists them. The web page's table is the same (a test keeps
  /// them in step).
  public static let commands: [Command] = [
    Command(usage: "/join ROOM", summary: "move to ROOM"),
    Command(usage: "/who", summary: "who is in this room"),
    Command(usage: "/rooms", summary: "rooms with members"),
    Command(usage: "/nick NAME", summary: "change your name"),
    Command(usage: "/me ACTION", summary: "send an action: * NAME ACTION"),
    Command(usage: "/history [N]", summary: "the last N messages (default 20)"),
    Command(usage: "/help", summary: "this list"),
    Command(usage: "/quit", summary: "leave"),
    Command(usage: "//TEXT", summary: "send a message that starts with /"),
  ]

  /// The command list as a front door shows it: `commands:` then one line per command.
  public static var helpLines: [String] {
    ["commands:"]
      + commands.map {
        "  " + $0.usage + String(repeating: " ", count: max(1, 16 - $0.usage.count)) + $0.summary
      }
  }

  /// Parses one line as typed (without its line break).
  public static func parse(_ line: String) -> ChatInput {
    if line.allSatisfy({ $0 == " " || $0 == "\t" }) { return .empty }
    guard line.utf8.first == UInt8(ascii: "/") else { return .message(line) }
    switch LineCommand.parse(line) {
    case .message(let text): return .message(text)
    case .me(let action): return .action(action)
    case .join(let room): return .join(room)
    case .nick(let name): return .nick(name)
    case .who: return .who
    case .rooms: return .rooms
    case .history(let n): return .history(n)
    case .help: return .help
    case .quit: return .quit
    case .empty: return .empty
    case .invalid(let problem): return .invalid(problem)
    case .since, .prove, .iam, .auth, .typing:
      // `/since` and `/ok` belong to the line dialect's own bookkeeping (a replay's next
      // page, UDP's proof): a front door keeps them itself. (`/typing` is the server's
      // line-dialect command; a front door has no typing input yet.)
      let name = line.dropFirst().prefix { $0 != " " }
      return .invalid("unknown command /\(name) (try /help)")
    }
  }
}
