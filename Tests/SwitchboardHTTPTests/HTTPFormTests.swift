import SwitchboardHTTP
import SwitchboardTestSupport
import Testing

/// The form decoder (login bodies) and the `Cookie` header reader: pure, within limits.
@Suite(.onTestThreads)
struct HTTPFormTests {
  @Test func aFormDecodesEscapesAndPlusAndKeepsTheFirstOfARepeatedKey() throws {
    let form = try HTTPForm(Array("password=correct+horse%20battery&a=1&a=2&flag&%3D=%26".utf8))
    #expect(form["password"] == "correct horse battery")
    #expect(form["a"] == "1")
    #expect(form["flag"] == "")
    #expect(form["="] == "&")
    #expect(form["missing"] == nil)
  }

  @Test func aFormOverItsLimitsIsRefused() {
    #expect(throws: HTTPForm.Refusal.tooLarge) {
      try HTTPForm(Array(repeating: UInt8(ascii: "a"), count: 17), limits: .init(maxBytes: 16))
    }
    #expect(throws: HTTPForm.Refusal.tooManyFields) {
      try HTTPForm(Array("a=1&b=2&c=3".utf8), limits: .init(maxFields: 2))
    }
    #expect((try? HTTPForm(Array("a=1&b=2".utf8), limits: .init(maxFields: 2)))?.fields.count == 2)
  }

  @Test func cookiesAreSplitTrimmedAndUnquoted() {
    let cookies = HTTPCookies(
      header: #" theme=dark;switchboard_admin=abc ; q="quoted"; broken; =nameless; theme=light"#)
    #expect(cookies.values("switchboard_admin") == ["abc"])
    #expect(cookies.values("q") == ["quoted"])
    #expect(cookies.values("theme") == ["dark", "light"])
    #expect(cookies.pairs.count == 4)
  }

  @Test func aCookieHeaderOverTheLimitsReadsAsNoneOrIsCut() {
    #expect(HTTPCookies(header: "a=" + String(repeating: "x", count: HTTPCookies.maxBytes)).pairs.isEmpty)
    let many = (0..<(HTTPCookies.maxCookies + 5)).map { "c\($0)=v" }.joined(separator: "; ")
    #expect(HTTPCookies(header: many).pairs.count == HTTPCookies.maxCookies)
  }
}
