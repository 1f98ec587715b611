import SwitchboardChat
import SwitchboardTestSupport
import SwitchboardWire
import Testing

/// A room event in each dialect is the wire's frame or line for what it carries (the hub's
/// events map onto the wire's encoders; SwitchboardWireTests hold those to the bytes).
@Suite(.onTestThreads)
struct ChatEventEncodingTests {
  static let plain = ChatMessage(id: 7, room: "lobby", time: 1, author: "ann", color: "#fff", text: "hi")
  static let escaped = ChatMessage(
    id: 8, room: "lobby", time: 2, author: "ann", color: "#fff", text: "hi\n\"x\"")
  static let presence = PresenceEvent(
    kind: .rename(from: "old"), author: "ann", room: "lobby", members: 2, color: "#fff")

  @Test func jsonFramesAreTheWiresFramesBehindTheHeaderRoom() {
    let cases: [(ChatEvent, [UInt8]?)] = [
      (.message(Self.plain, origin: nil), JSONDialect.encodedBytes(Self.plain)),
      (.message(Self.escaped, origin: MemberID(raw: 3)), JSONDialect.encodedBytes(Self.escaped)),
      (.presence(Self.presence, origin: nil), JSONDialect.encodedBytes(Self.presence)),
      (.shutdown(reason: "bye"), Array(JSONDialect.goingAway(reason: "bye").utf8)),
      (
        .epochChanged(room: "lobby", epoch: "e2"),
        Array(JSONDialect.history([], epoch: "e2", recovered: false).utf8)
      ),
      (.binary(room: "lobby", bytes: [1, 2], origin: nil), nil),
    ]
    for (event, frame) in cases {
      #expect(JSONDialect.encodedBytes(event) == frame, "\(event)")
      #expect(
        JSONDialect.encodedBytes(event, headerRoom: 10) == frame.map { [UInt8](repeating: 0, count: 10) + $0 }
      )
      #expect(JSONDialect.encode(event) == frame.map { String(decoding: $0, as: UTF8.self) })
    }
    #expect(
      JSONDialect.encode(.shutdown(reason: "bye"))
        == #"{"type":"error","data":{"code":"going_away","message":"bye"}}"#)
  }

  @Test func linesAreTheWiresLines() {
    #expect(LineDialect.format(.message(Self.plain, origin: nil)) == "ann: hi")
    #expect(LineDialect.format(.message(Self.escaped, origin: nil)) == LineDialect.format(Self.escaped))
    #expect(LineDialect.format(.presence(Self.presence, origin: nil)) == "* old is now ann")
    #expect(
      LineDialect.format(.shutdown(reason: "bye\nnow")) == "* server is going away: "
        + LineDialect.escape("bye\nnow"))
    #expect(LineDialect.format(.epochChanged(room: "lobby", epoch: "e2")) == nil)
    #expect(LineDialect.format(.binary(room: "lobby", bytes: [1], origin: nil)) == nil)
  }
}
