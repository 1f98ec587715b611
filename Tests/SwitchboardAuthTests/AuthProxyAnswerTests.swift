import Foundation
import SwitchboardTestSupport
import Testing

@testable import SwitchboardAuth

/// The auth proxy's answer decoder (untrusted bytes from the app's backend) and the request
/// body the server sends (docs/API.md, "Auth proxy").
@Suite(.onTestThreads)
struct AuthProxyAnswerTests {
  private func decode(_ text: String) throws(AuthProxyAnswerError) -> AuthProxyAnswer {
    try AuthProxyAnswer.decode(Array(text.utf8))
  }

  @Test func allowWithANameAndRoomsAdmitsRenamesAndLimits() throws {
    #expect(try decode(#"{"allow":true}"#) == .allow(name: nil, rooms: nil))
    let answer = try decode(#"{"allow":true,"name":"alice","rooms":["lobby","team-*"],"extra":1}"#)
    #expect(answer == .allow(name: "alice", rooms: [RoomPattern("lobby")!, RoomPattern("team-*")!]))
    #expect(answer.allows(room: "team-a"))
    #expect(!answer.allows(room: "secret"))
    #expect(try decode(#"{"allow":true,"name":null,"rooms":null}"#) == .allow(name: nil, rooms: nil))
  }

  @Test func denyCarriesAShowableReason() throws {
    #expect(try decode(#"{"allow":false,"reason":"banned"}"#) == .deny(reason: "banned"))
    #expect(try decode(#"{"allow":false}"#) == .deny(reason: AuthProxyAnswer.defaultReason))
    #expect(try decode(#"{"allow":false,"reason":""}"#) == .deny(reason: AuthProxyAnswer.defaultReason))
    // One line whatever the backend wrote, and short enough for a WebSocket close reason.
    #expect(try decode(#"{"allow":false,"reason":"a\nb\u0000c"}"#) == .deny(reason: "a b c"))
    let long = String(repeating: "é", count: 100)
    guard case .deny(let reason) = try decode(#"{"allow":false,"reason":"\#(long)"}"#) else {
      Issue.record("not a refusal")
      return
    }
    #expect(reason.utf8.count == AuthProxyAnswer.maxReasonBytes)
  }

  @Test(arguments: [
    #"{"allow":"yes"}"#, #"{"name":"alice"}"#, "[true]", "true", "", "{", #"{"allow":true,"name":""}"#,
    #"{"allow":true,"name":7}"#, #"{"allow":true,"rooms":"lobby"}"#, #"{"allow":true,"rooms":[1]}"#,
    #"{"allow":true,"rooms":["bad room"]}"#, #"{"allow":false,"reason":5}"#,
    #"{"allow":true,"name":"a\u0007b"}"#, #"{"allow":true,"rooms":[[[[["x"]]]]]}"#,
  ])
  func malformedAnswersAreErrors(_ text: String) {
    #expect(throws: AuthProxyAnswerError.self) { try decode(text) }
  }

  @Test func limitsAreEnforced() {
    let name = String(repeating: "n", count: 65)
    #expect(throws: AuthProxyAnswerError.self) { try decode(#"{"allow":true,"name":"\#(name)"}"#) }
    let rooms = (0...64).map { #""r\#($0)""# }.joined(separator: ",")
    #expect(throws: AuthProxyAnswerError.self) { try decode(#"{"allow":true,"rooms":[\#(rooms)]}"#) }
    let big = #"{"allow":true,"pad":""# + String(repeating: "x", count: AuthProxyAnswer.maxBytes) + #""}"#
    #expect(throws: AuthProxyAnswerError.tooLarge) { try decode(big) }
  }

  /// The committed fuzz seeds (Tests/Fuzz/auth-proxy/corpus) decode or are refused, never crash.
  @Test func fuzzSeedsDecodeOrAreRefused() throws {
    let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Fuzz/auth-proxy/corpus")
    let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
    #expect(files.count >= 10)
    var decoded = 0
    for file in files {
      let bytes = Array(try Data(contentsOf: directory.appendingPathComponent(file)))
      if (try? AuthProxyAnswer.decode(bytes)) != nil { decoded += 1 }
    }
    #expect(decoded >= 4 && decoded < files.count)
  }

  @Test func theRequestIsCanonicalJSONWithoutTheToken() throws {
    let request = AuthProxyRequest(
      transport: "websocket", peer: "127.0.0.1", name: "alice", room: "lobby", cookie: "s=1",
      authorization: nil, query: ["name": "alice", "token": "SECRET"], claims: ["sub": .string("alice")])
    #expect(
      request.encoded()
        == #"{"claims":{"sub":"alice"},"headers":{"authorization":null,"cookie":"s=1"},"name":"alice","peer":"127.0.0.1","query":{"name":"alice"},"room":"lobby","transport":"websocket"}"#
    )
    let line = AuthProxyRequest(transport: "tcp", peer: "::1", name: nil, room: "lobby")
    #expect(line.encoded().contains(#""name":null"#))
    #expect(!line.encoded().contains("claims"))
    #expect(request.cacheKey != line.cacheKey)
  }
}
