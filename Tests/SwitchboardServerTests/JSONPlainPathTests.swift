import Foundation
import SwitchboardTestSupport
import SwitchboardWire
import Testing

@testable import SwitchboardServer

/// The JSON protocol's `message` frames as clients see them, for texts and names that take
/// each of the frame writer's paths: copied unchecked (the reader found the text plain, the
/// hub the name and room), checked as copied, and built piece by piece with escapes.
@Suite(.onTestThreads)
struct JSONPlainPathTests {
  /// A text sent in the canonical frame, its bytes raw where JSON allows them (U+2028 and
  /// curly quotes too), escaped where it must be; names with and without a quote.
  static let texts = [
    "plain text", "it’s “quoted” — fine", "line\u{2028}sep\u{2029}end", "tab\tand \"quote\" \\ slash",
    "€uro 日本語 👋",
    String(repeating: "x", count: 300),
  ]  // (An empty text is not published: FrontDoorAgreementTests.)

  /// The canonical frame a client writes for `text`: raw bytes when nothing needs an
  /// escape in JSON's own rules (U+2028 may stand raw in a JSON string), else escaped.
  static func frame(_ text: String) -> String {
    let raw = !text.unicodeScalars.contains { $0 == "\"" || $0 == "\\" || $0.value < 0x20 }
    let body = raw ? text : String(JSONDialect.quote(text).dropFirst().dropLast())
    return #"{"type":"message","data":{"text":""# + body + #""}}"#
  }

  @Test func textsAndNamesArriveAsSentWhicheverPathTheFrameTakes() async throws {
    try await withServer { server in
      let names = ["plain", #"Zoë "z""#]
      let encoded = names.map { $0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }
      let senders = try encoded.map {
        try WebSocketTestClient(server.httpAddress!, path: "/rooms/esc?name=\($0)")
      }
      let reader = try WebSocketTestClient(server.httpAddress!, path: "/rooms/esc?name=reader")
      for client in senders + [reader] { _ = try client.nextJSON(type: "history") }
      for (sender, name) in zip(senders, names) {
        for text in Self.texts {
          try sender.send(text: Self.frame(text))
          var frame = try reader.nextText()
          // (Past the frames of the others' arrival: presence and their colours.)
          while !frame.hasPrefix(#"{"type":"message""#) { frame = try reader.nextText() }
          let object = try #require(
            try JSONSerialization.jsonObject(with: Data(frame.utf8)) as? [String: Any])
          let data = try #require(object["data"] as? [String: Any], "\(frame)")
          #expect(object["type"] as? String == "message", "\(frame)")
          #expect(data["text"] as? String == text, "\(frame)")
          #expect(data["author"] as? String == name && data["room"] as? String == "esc", "\(frame)")
          // U+2028 and U+2029 go out escaped (the page's JavaScript reads the frame), never raw.
          #expect(
            !frame.unicodeScalars.contains("\u{2028}") && !frame.unicodeScalars.contains("\u{2029}"),
            "\(frame)")
          // The frame is the builder's bytes, whatever path wrote it.
          let kept = ChatMessage(
            id: (data["id"] as? NSNumber)!.uint64Value, room: "esc",
            time: (data["time"] as? NSNumber)!.int64Value,
            author: name, color: data["color"] as! String, text: text)
          let built = JSONDialect.encodedBytes(.message(kept, origin: nil)) ?? []
          #expect(Array(frame.utf8) == built, "\(frame)")
        }
      }
    }
  }
}
