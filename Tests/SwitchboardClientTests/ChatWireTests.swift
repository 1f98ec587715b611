import SwitchboardTestSupport
import SwitchboardWire
import Testing

@testable import SwitchboardClient

/// The pure encode side of the line dialect.
@Suite(.onTestThreads) struct ChatWireTests {
  @Test(arguments: [
    ("one line", ["msg:one line"]),
    ("a\nb", ["msg:a", "msg:b"]),
    ("a\r\nb", ["msg:a", "msg:b"]),
    ("a\r\nb\nc\r\n", ["msg:a", "msg:b", "msg:c", "msg:"]),
    ("é\r\n👋🏽\r\nz", ["msg:é", "msg:👋🏽", "msg:z"]),
    ("x\r\n\r\ny\n\nz\r", ["msg:x", "msg:", "msg:y", "msg:", "msg:z"]),
    ("a\rb", ["msg:a\rb"]),
    ("", ["msg:"]),
  ])
  func eachLineOfTextIsOneMsgLineWithoutItsTerminator(text: String, lines: [String]) {
    #expect(ChatWire.lineMessages(text) == lines)
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
