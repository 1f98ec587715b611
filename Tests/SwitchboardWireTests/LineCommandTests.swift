import SwitchboardTestSupport
import SwitchboardWire
import Testing

@Suite(.onTestThreads)
struct LineCommandTests {
  @Test(arguments: [
    ("iam:bob", LineCommand.iam("bob")),
    ("auth:eyJ.x.y", .auth("eyJ.x.y")),
    ("msg:hello", .message("hello")),
    ("hello", .message("hello")),
    ("//slash", .message("/slash")),
    ("/nick  carol ", .nick("carol")),
    ("/join dev", .join("dev")),
    ("/JOIN dev", .join("dev")),
    ("/who", .who),
    ("/rooms", .rooms),
    ("/history", .history(nil)),
    ("/history 5", .history(5)),
    ("/since 42", .since(42)),
    ("/me waves", .me("waves")),
    ("/help", .help),
    ("/quit", .quit),
    ("   ", .empty),
    ("", .empty),
  ])
  func parses(line: String, expected: LineCommand) {
    #expect(LineCommand.parse(line) == expected)
  }

  @Test(arguments: ["/nick", "/join", "/join bad room", "/history x", "/since", "/since -1", "/me", "/frob"])
  func malformedCommandsAreInvalid(line: String) {
    guard case .invalid(let message) = LineCommand.parse(line) else {
      Issue.record("\(line) parsed as a valid command")
      return
    }
    #expect(!message.isEmpty)
  }

  @Test func aPrefixFollowedByACombiningMarkStaysAPrefix() {
    // Found by fuzz-line (Tests/Fuzz/line/corpus/combining-after-prefix): "msg:" followed by
    // U+0357 was one character ":\u{357}" to `hasPrefix`, so the prefix went unseen.
    #expect(LineCommand.parse("msg:\u{357}x") == .message("\u{357}x"))
    #expect(LineCommand.parse("iam:\u{301}ann") == .iam("\u{301}ann"))
    #expect(LineCommand.parse("//\u{301}x") == .message("/\u{301}x"))
  }

  @Test func aCommandIsSplitAtTheFirstSpaceEvenBeforeACombiningMark() {
    // Found by fuzz-line (Tests/Fuzz/line/corpus/combining-after-space): in "/join \u{65B}"
    // the space and U+065B are one Character, so the command read as "join \u{65B}". (A mark
    // alone is no room name: the command is still `join`, and answers with its usage.)
    #expect(LineCommand.parse("/join \u{65B}") == .invalid("usage: /join ROOM (1-64 letters, digits, - _ .)"))
    #expect(LineCommand.parse("/join \u{65B}x") == .invalid("usage: /join ROOM (1-64 letters, digits, - _ .)"))
    #expect(LineCommand.parse("/join \u{5D0}") == .join("\u{5D0}"))
    #expect(LineCommand.parse("/me \u{301}waves") == .me("\u{301}waves"))
  }

  @Test func roomNames() {
    #expect(RoomName.validate("lobby") == "lobby")
    #expect(RoomName.validate("dev-2_x.y") == "dev-2_x.y")
    #expect(RoomName.validate("") == nil)
    #expect(RoomName.validate("a b") == nil)
    #expect(RoomName.validate(String(repeating: "a", count: 65)) == nil)
  }
}
