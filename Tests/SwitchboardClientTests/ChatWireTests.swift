import SwitchboardTestSupport
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
}
