import SwitchboardClient
import SwitchboardTestSupport
import SwitchboardWire
import Testing

/// The command language of every front door, against the public API only: what a typed line
/// is, and that it is what the line dialect's server makes of the same line.
@Suite(.onTestThreads)
struct ChatInputTests {
  @Test(arguments: [
    ("hello", ChatInput.message("hello")),
    ("iam:bob", .message("iam:bob")),  // not a command on a front door: sent as typed
    ("msg:x", .message("msg:x")),
    ("//who", .message("/who")),
    ("// two", .message("/ two")),
    ("/me dances", .action("dances")),
    ("/join dev", .join("dev")),
    ("/JOIN dev", .join("dev")),
    ("/nick ada", .nick("ada")),
    ("/name ada", .nick("ada")),
    ("/who", .who),
    ("/rooms", .rooms),
    ("/history", .history(nil)),
    ("/history 5", .history(5)),
    ("/help", .help),
    ("/?", .help),
    ("/quit", .quit),
    ("/exit", .quit),
    ("", .empty),
    ("   \t", .empty),
    ("/join dev room", .invalid("usage: /join ROOM (1-64 letters, digits, - _ .)")),
    ("/join", .invalid("usage: /join ROOM (1-64 letters, digits, - _ .)")),
    ("/me", .invalid("usage: /me ACTION")),
    ("/nick", .invalid("usage: /nick NAME")),
    ("/history x", .invalid("usage: /history [N]")),
    ("/frob", .invalid("unknown command /frob (try /help)")),
    ("/since 3", .invalid("unknown command /since (try /help)")),
    ("/ok 1234", .invalid("unknown command /ok (try /help)")),
  ])
  func aTypedLineIsParsedAsTheLineDialectParsesIt(line: String, expected: ChatInput) {
    #expect(ChatInput.parse(line) == expected)
  }

  /// Every command a front door runs is the same command on the line dialect: the server's
  /// parser agrees on each.
  @Test func everyCommandMeansWhatTheServerMakesOfIt() {
    let pairs: [(String, LineCommand)] = [
      ("/me dances", .me("dances")), ("/join dev", .join("dev")), ("/nick ada", .nick("ada")),
      ("/who", .who), ("/rooms", .rooms), ("/history 3", .history(3)), ("/help", .help), ("/quit", .quit),
      ("//text", .message("/text")),
    ]
    for (line, command) in pairs { #expect(LineCommand.parse(line) == command, "\(line)") }
  }

  /// `/help` lists every command with its usage, `//TEXT` among them; the server's `/help`
  /// names the same slash commands.
  @Test func helpListsEveryCommandAndHowToSendASlash() {
    let lines = ChatInput.helpLines
    #expect(lines.first == "commands:")
    #expect(lines.count == ChatInput.commands.count + 1)
    for command in ChatInput.commands {
      #expect(lines.contains { $0.hasPrefix("  " + command.usage + " ") && $0.hasSuffix(command.summary) })
    }
    #expect(lines.contains { $0.contains("//TEXT") })
    for usage in [
      "/join ROOM", "/who", "/rooms", "/nick NAME", "/me ACTION", "/history [N]", "/help", "/quit", "//TEXT",
    ] {
      #expect(LineCommand.helpLines.contains { $0.contains(usage) }, "the server's /help lacks \(usage)")
    }
  }
}
