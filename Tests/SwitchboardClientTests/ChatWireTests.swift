import SwitchboardTestSupport
import SwitchboardWire
import Testing

@testable import SwitchboardClient

/// The pure encode side of the line dialect.
@Suite(.onTestThreads) struct ChatWireTests {
  @Test(arguments: [
    ("one line", ["msg:one line"]),
    (#"C:\Users"#, [#"msg:C:\Users"#]),
    ("a\nb", [#"emsg:a\nb"#]),
    ("a\r\nb", [#"emsg:a\r\nb"#]),
    ("é\r\n👋🏽\nz", [#"emsg:é\r\n👋🏽\nz"#]),
    ("a\rb", [#"emsg:a\rb"#]),
    ("x\u{1B}[2K\\n", [#"emsg:x\u{1b}[2K\\n"#]),
    ("", ["msg:"]),
  ])
  func aTextIsOneLineEscapedWhenItHoldsABreak(text: String, lines: [String]) {
    #expect(ChatWire.lineMessages(text) == lines)
    // What the server makes of it: exactly the text (or nothing, for an empty one).
    let parsed = lines.map { LineCommand.parse($0) }
    #expect(parsed == [text.isEmpty ? .empty : .message(text)])
  }

  /// A `not_stored` error that names the message's `ref` (a publish that got no id) is
  /// matched to that send; one without a ref stays a plain server error.
  @Test func anErrorWithARefIsARejectionOfThatMessage() {
    let server = JSONDialect.error(code: "not_stored", message: "the message was not stored: x", ref: #""r7""#)
    #expect(
      ChatWire.decodeJSON(server, room: "lobby", me: "a")
        == .rejected(ref: "r7", code: "not_stored", message: "the message was not stored: x"))
    let plain = JSONDialect.error(code: "invalid_data", message: "bad")
    #expect(ChatWire.decodeJSON(plain, room: "lobby", me: "a") == .serverError(code: "invalid_data", message: "bad"))
  }
}
