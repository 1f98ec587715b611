import SwitchboardTestSupport
import SwitchboardWire
import Testing

/// The `features` and `typing` client frames and the server's frames for them
/// (docs/PROTOCOLS.md, "Features" and "Typing"), each against the Foundation reference.
@Suite(.onTestThreads)
struct TypingFrameTests {
  @Test func featuresAndTypingFramesParseAsTheReferenceParsesThem() {
    let cases: [(String, ClientFrame)] = [
      (#"{"type":"features","data":["typing"]}"#, .features(["typing"])),
      (#"{"type":"features","data":[]}"#, .features([])),
      (#"{"type":"features","data":["typing",1,{"a":[true]},null,"dm",]}"#, .features(["typing", "dm"])),
      (#"{"type":"features","data":["\u0074yping"]}"#, .features(["typing"])),
      (#"{"data":["a"],"type":"features","data":["b"]}"#, .features(["b"])),
      (
        #"{"type":"features","data":"typing"}"#,
        .invalid(code: "invalid_data", message: "features needs data to be an array of names")
      ),
      (
        #"{"type":"features","data":["a"],"data":{}}"#,
        .invalid(code: "invalid_data", message: "features needs data to be an array of names")
      ),
      (#"{"type":"typing","data":{"active":true}}"#, .typing(active: true)),
      (#"{"type":"typing","data":{"active":false,"room":"x"}}"#, .typing(active: false)),
      (
        #"{"type":"typing","data":{"active":1}}"#,
        .invalid(code: "invalid_data", message: "typing needs data.active (true or false)")
      ),
      (
        #"{"type":"typing"}"#,
        .invalid(code: "invalid_data", message: "typing needs data.active (true or false)")
      ),
    ]
    for (text, frame) in cases {
      #expect(ClientFrame.parse(text) == frame, "\(text)")
      #expect(JSONReference.parse(text, maxLength: 1 << 20) == frame, "reference: \(text)")
    }
    // Within limits: at most 32 names, each of at most 64 bytes; a poisoned number refuses.
    let many = "[" + (0..<40).map { #""f\#($0)""# }.joined(separator: ",") + "]"
    #expect(
      ClientFrame.parse(#"{"type":"features","data":"# + many + "}") == .features((0..<32).map { "f\($0)" }))
    let long = String(repeating: "x", count: 65)
    #expect(
      ClientFrame.parse(#"{"type":"features","data":[""# + long + #"","typing"]}"#) == .features(["typing"]))
    #expect(
      ClientFrame.parse(#"{"type":"features","data":[1e999]}"#)
        == JSONReference.parse(#"{"type":"features","data":[1e999]}"#, maxLength: 1 << 20))
  }

  @Test func theServersFramesAreJSONAsDocumented() {
    #expect(
      JSONDialect.features(enabled: [.typing])
        == #"{"type":"features","data":{"version":2,"supported":["typing"],"enabled":["typing"]}}"#)
    #expect(
      JSONDialect.features(enabled: [])
        == #"{"type":"features","data":{"version":2,"supported":["typing"],"enabled":[]}}"#)
    #expect(
      JSONDialect.typing(TypingEvent(room: "dev", author: "al\"ice", active: true))
        == #"{"type":"typing","data":{"room":"dev","author":"al\"ice","active":true}}"#)
    #expect(LineDialect.typingNotice(author: "alice") == "* alice is typing")
    #expect(ProtocolFeature.known(["x", "typing", "typing"]) == [.typing])
  }
}
