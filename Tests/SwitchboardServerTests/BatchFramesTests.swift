import SwitchboardChat
import SwitchboardIO
import SwitchboardTestSupport
import SwitchboardWebSocket
import SwitchboardWire
import Testing

@testable import SwitchboardServer

/// A batch's frames (``MessageBatch``), as the shard shares them between its WebSocket
/// members: every message's frame back to back, written in place. Held to the single
/// message's frame, concatenated, for the JSON protocol and the text dialect — plain and
/// escaped strings, empty and long texts, every header length.
@Suite(.onTestThreads)
struct BatchFramesTests {
  private static let texts = [
    "", "hi", "a\"b", "tab\there", "line\u{2028}break", "é€👋", String(repeating: "x", count: 125),
    String(repeating: "y", count: 126), String(repeating: "z", count: 65_535), String(repeating: "w", count: 65_536),
    String(repeating: "\\", count: 70),
  ]

  private static func message(_ i: Int, _ text: String) -> BatchedMessage {
    let m = ChatMessage(
      id: UInt64(i + 1), room: "r", time: 1_733_000_000_000 + Int64(i), author: i % 3 == 0 ? "a\"b" : "alice",
      color: "teal", text: text, isAction: i % 4 == 1)
    return BatchedMessage(m, origin: i % 2 == 0 ? MemberID(raw: UInt64(i)) : nil)
  }

  /// Random batches drawn from `texts`: with only plain strings, and with escapes.
  private static func batches(seed: UInt64, plainOnly: Bool) -> [[BatchedMessage]] {
    var rng = SeededGenerator(seed: seed)
    let pool = plainOnly ? texts.filter { !$0.contains("\"") && !$0.contains("\t") && !$0.contains("\\") && !$0.contains("\u{2028}") } : texts
    return (0..<20).map { _ in
      (0..<Int(rng.next() % 8 + 1)).map { i in message(i, pool[Int(rng.next() % UInt64(pool.count))]) }
    }
  }

  @Test(arguments: [false, true])
  func jsonFramesAreEachMessagesFrameBackToBack(plainOnly: Bool) {
    for batch in Self.batches(seed: plainOnly ? 7 : 8, plainOnly: plainOnly) {
      let expected = batch.flatMap { JSONDialect.webSocketFrame($0.event).array }
      let frames = ContiguousArray(batch).withUnsafeBufferPointer { JSONDialect.webSocketFrames($0) }
      #expect(frames.array == expected)
    }
  }

  @Test func textFramesAreEachMessagesFrameBackToBack() {
    for batch in Self.batches(seed: 9, plainOnly: false) {
      let expected = batch.flatMap { m in
        WebSocketFrameEncoder.encode(opcode: .text, payload: Array(m.message.text.utf8))
      }
      let frames = ContiguousArray(batch).withUnsafeBufferPointer { WebSocketSession.textFrames($0) }
      #expect(frames.array == expected)
    }
  }

  /// The in-place view of a message's text the frame writers use: its UTF-8 and count.
  @Test func theTextsUTF8IsItsBytes() {
    for text in Self.texts {
      let m = ChatMessage(id: 1, room: "r", time: 0, author: "a", color: "c", text: text)
      var bytes: [UInt8] = []
      m.withTextUTF8 { bytes = Array($0) }
      #expect(bytes == Array(text.utf8))
      #expect(m.textUTF8Count == text.utf8.count)
    }
  }
}
