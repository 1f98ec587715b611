import SwitchboardClient
import SwitchboardTestSupport
import Testing

/// The terminal chat's input line, fed the bytes a raw-mode terminal sends, without one.
@Suite(.onTestThreads)
struct ChatLineEditorTests {
  private static let left = "\u{1B}[D", right = "\u{1B}[C", up = "\u{1B}[A", down = "\u{1B}[B"
  private static let home = "\u{1B}[H", end = "\u{1B}[F", delete = "\u{1B}[3~"

  private func editor(typing keys: String...) -> (ChatLineEditor, [ChatLineEditor.Outcome]) {
    var editor = ChatLineEditor()
    var outcomes: [ChatLineEditor.Outcome] = []
    for key in keys { outcomes += editor.feed(Array(key.utf8)) }
    return (editor, outcomes)
  }

  @Test func typingInsertsAtTheCursorAndLeftRightMoveIt() {
    let (e, _) = editor(typing: "helo", Self.left, "l", Self.right, "!", Self.left, Self.left)
    #expect(e.text == "hello!")
    #expect(e.cursor == 4)
  }

  @Test func homeEndAndTheirControlKeys() {
    var (e, _) = editor(typing: "world", Self.home, "hello ", Self.end, "!")
    #expect(e.text == "hello world!")
    _ = e.feed([0x01])  // Ctrl-A
    #expect(e.cursor == 0)
    _ = e.feed(Array(">".utf8))
    _ = e.feed([0x05])  // Ctrl-E
    #expect(e.cursor == e.characters.count)
    #expect(e.text == ">hello world!")
    // The other spellings terminals send for Home and End.
    _ = e.feed(Array("\u{1B}[1~".utf8))
    #expect(e.cursor == 0)
    _ = e.feed(Array("\u{1B}OF".utf8))
    #expect(e.cursor == e.characters.count)
  }

  @Test func backspaceAndDeleteWorkAtTheCursor() {
    var (e, _) = editor(typing: "abcd", Self.left, Self.left, "\u{7F}")
    #expect(e.text == "acd" && e.cursor == 1)
    _ = e.feed(Array(Self.delete.utf8))
    #expect(e.text == "ad" && e.cursor == 1)
    _ = e.feed([0x04])  // Ctrl-D on a line with text deletes at the cursor
    #expect(e.text == "a" && e.cursor == 1)
    _ = e.feed([0x7F, 0x7F, 0x7F])  // nothing left to delete: no harm
    #expect(e.text == "" && e.cursor == 0)
  }

  @Test func ctrlUAndCtrlKCutToEitherEnd() {
    var (e, _) = editor(
      typing: "one two three", Self.left, Self.left, Self.left, Self.left, Self.left, Self.left)
    _ = e.feed([0x0B])
    #expect(e.text == "one two")
    _ = e.feed(Array(Self.left.utf8) + Array(Self.left.utf8) + Array(Self.left.utf8))
    _ = e.feed([0x15])
    #expect(e.text == "two" && e.cursor == 0)
  }

  @Test func enterSubmitsTheWholeLineWhereverTheCursorIs() {
    let (e, outcomes) = editor(typing: "hi there", Self.home, "\r")
    #expect(outcomes.last == .submit("hi there"))
    #expect(e.text == "" && e.cursor == 0)
    #expect(e.history == ["hi there"])
  }

  @Test func upAndDownWalkTheHistoryAndKeepTheDraft() {
    var (e, _) = editor(typing: "first\r", "second\r", "second\r", "   \r", "draft")
    #expect(e.history == ["first", "second"])  // no repeat, no blank line
    _ = e.feed(Array(Self.up.utf8))
    #expect(e.text == "second" && e.cursor == 6)
    _ = e.feed(Array(Self.up.utf8))
    #expect(e.text == "first")
    #expect(e.feed(Array(Self.up.utf8)) == [])  // the oldest: stays
    _ = e.feed(Array(Self.down.utf8))
    #expect(e.text == "second")
    _ = e.feed(Array(Self.down.utf8))
    #expect(e.text == "draft")  // below the newest: the line being written
    _ = e.feed(Array((Self.up + Self.left + "!\r").utf8))
    #expect(e.history == ["first", "second", "secon!d"])
  }

  @Test func utf8AndCombiningMarksAreWholeCharacters() {
    var (e, _) = editor(typing: "caf", "e\u{301}", "\u{1F600}", Self.left, "x")
    #expect(e.text == "café" + "x" + "\u{1F600}")
    #expect(e.characters.count == 6)
    _ = e.feed([0x7F, 0x7F])
    #expect(e.text == "caf\u{1F600}")
    // Bytes that are not UTF-8 are U+FFFD, as the server would take them.
    _ = e.feed([0xFF])
    #expect(e.text == "caf\u{FFFD}\u{1F600}")
  }

  @Test func ctrlCAndCtrlDOnAnEmptyLineQuitAndOtherControlsAreIgnored() {
    var e = ChatLineEditor()
    #expect(e.feed([0x07, 0x1B, UInt8(ascii: "x")]) == [])  // BEL, Alt-x
    #expect(e.text == "")
    #expect(e.feed([0x04]) == [.quit])
    _ = e.feed(Array("a".utf8))
    #expect(e.feed([0x03]) == [.quit])
  }

  @Test func historyIsBounded() {
    var e = ChatLineEditor(maxHistory: 2)
    _ = e.feed(Array("a\rb\rc\r".utf8))
    #expect(e.history == ["b", "c"])
  }
}
