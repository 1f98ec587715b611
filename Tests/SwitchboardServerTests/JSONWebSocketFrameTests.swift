import SwitchboardChat
import SwitchboardIO
import SwitchboardTestSupport
import SwitchboardWebSocket
import SwitchboardWire
import Testing

@testable import SwitchboardServer

/// The JSON frame a shard shares between its WebSocket members
/// (``JSONDialect/webSocketFrame(_:)``), written in place into `SharedBytes` for a plain
/// message and framed from the array builder otherwise, against the general path: the
/// frame encoder around ``JSONDialect/encodedBytes(_:headerRoom:)``'s bytes.
@Suite(.onTestThreads)
struct JSONWebSocketFrameTests {
  /// What the frame must be: an unmasked text frame of the builder's bytes.
  private static func expected(_ event: ChatEvent) -> [UInt8] {
    WebSocketFrameEncoder.encode(opcode: .text, payload: JSONDialect.encodedBytes(event) ?? [])
  }

  /// Every header length (7-bit, 16-bit and 64-bit payload lengths, and both sides of each
  /// boundary), plain and escaped strings, ids and times of every length and sign, `/me`.
  @Test func theSharedFrameIsTheBuildersBytesFramed() {
    let texts = [
      "", "hi", "a\"b", "tab\there", "line\u{2028}break", "é€👋", String(repeating: "x", count: 64),
      String(repeating: "y", count: 60), String(repeating: "z", count: 61), String(repeating: "w", count: 200),
      String(repeating: "v", count: 65_400), String(repeating: "u", count: 66_000), String(repeating: "\\", count: 70),
    ]
    let numbers: [UInt64] = [0, 9, 10, 99, 100, 12_345, 1_733_000_000_000, 1 << 40, UInt64(Int64.max), .max]
    var plainFrames = 0
    for (i, text) in texts.enumerated() {
      for (j, id) in numbers.enumerated() {
        let time = Int64(truncatingIfNeeded: numbers[(i + j) % numbers.count]) * (j % 3 == 0 ? -1 : 1)
        let author = j % 4 == 0 ? "Zoë \"z\"" : "Client \(j)"
        let m = ChatMessage(
          id: id, room: "bench", time: time, author: author, color: "#a1b2c3", text: text, isAction: j % 5 == 0)
        let event = ChatEvent.message(m, origin: nil)
        if JSONDialect.plainMessageFrame(m, headerRoom: 0) != nil { plainFrames += 1 }
        #expect(JSONDialect.webSocketFrame(event).array == Self.expected(event), "\(m)")
      }
    }
    #expect(plainFrames >= 50)  // 8 of the texts are plain, with 7 of the 10 authors
  }

  @Test func otherEventsAreTheBuildersBytesFramed() {
    let presence = PresenceEvent(kind: .join, author: "ann", room: "lobby", members: 3, color: "#fff")
    let events: [ChatEvent] = [
      .presence(presence, origin: nil),
      .shutdown(reason: "maintenance"),
      .epochChanged(room: "lobby", epoch: "e2"),
    ]
    for event in events {
      #expect(JSONDialect.webSocketFrame(event).array == Self.expected(event), "\(event)")
    }
  }
}
