import SwitchboardHTTP
import SwitchboardTestSupport
import Testing

@Suite(.onTestThreads)
struct HTTPRequestHeadTests {
  private func head(_ target: String, version: HTTPVersion = .http1_1, _ headers: HTTPHeaders = [:])
    -> HTTPRequestHead
  {
    HTTPRequestHead(method: "GET", target: target, version: version, headers: headers)
  }

  @Test(arguments: [
    ("/", "/"), ("/rooms/lobby?x=1", "/rooms/lobby"), ("/a%20b?c", "/a%20b"), ("/x#frag", "/x"),
    ("http://host:1337/rooms/a?b=1", "/rooms/a"), ("http://host", "/"), ("*", "*"), ("/?only", "/"),
  ])
  func pathIsTargetWithoutQuery(target: String, path: String) {
    #expect(head(target).path == path)
  }

  @Test func queryIsDecoded() {
    let query = head("/?room=caf%C3%A9&name=bob+smith&flag&empty=&a=1&a=2&bad=%zz%4").query
    #expect(query["room"] == "café")
    #expect(query["name"] == "bob smith")
    #expect(query["flag"] == "")
    #expect(query["empty"] == "")
    #expect(query["a"] == "1")  // first value wins
    #expect(query["bad"] == "%zz%4")
    #expect(query.count == 6)
  }

  @Test func queryHandlesEdgeCases() {
    #expect(head("/").query.isEmpty)
    #expect(head("/?").query.isEmpty)
    #expect(head("/?&&").query.isEmpty)
    #expect(head("/?k%3Dx=v%26w#frag").query == ["k=x": "v&w"])
    #expect(head("/?x=%FF").query["x"] == "\u{FFFD}")
    #expect(head("/?q=a=b").query["q"] == "a=b")
    #expect(head("/?format=text&notify_self=1").rawQuery == "format=text&notify_self=1")
  }

  /// A character that joins the next one into one `Character` (U+070F is a grapheme
  /// "prepend"; a combining mark joins the one before it) never hides a delimiter: `?`, `#`,
  /// `&` and `=` are found as bytes (fuzz-url's `prepend-before-question-mark`).
  @Test func delimitersAfterAJoiningCharacterStillSplit() {
    let h = head("/rooms/a\u{70F}?since=5\u{70F}&x\u{70F}=\u{301}y#f")
    #expect(h.path == "/rooms/a\u{70F}")
    #expect(h.rawQuery == "since=5\u{70F}&x\u{70F}=\u{301}y")
    #expect(h.query == ["since": "5\u{70F}", "x\u{70F}": "\u{301}y"])
    #expect(head("http\u{70F}://h/a").path == "http\u{70F}://h/a")
  }

  @Test func keepAliveFollowsVersionAndConnectionHeader() {
    #expect(head("/").keepAlive)
    #expect(!head("/", ["Connection": "close"]).keepAlive)
    #expect(!head("/", ["connection": "Keep-Alive, CLOSE"]).keepAlive)
    #expect(!head("/", version: .http1_0).keepAlive)
    #expect(head("/", version: .http1_0, ["Connection": "keep-alive"]).keepAlive)
    #expect(head("/", version: .http1_0, ["Connection": "Upgrade, Keep-Alive"]).keepAlive)
  }

  @Test func webSocketUpgradeIsRecognised() {
    let upgrade: HTTPHeaders = ["Connection": "keep-alive, Upgrade", "Upgrade": "WebSocket"]
    #expect(head("/", upgrade).isWebSocketUpgrade)
    #expect(!head("/", version: .http1_0, upgrade).isWebSocketUpgrade)
    #expect(!HTTPRequestHead(method: "POST", target: "/", headers: upgrade).isWebSocketUpgrade)
    #expect(!head("/", ["Connection": "Upgrade", "Upgrade": "h2c"]).isWebSocketUpgrade)
    #expect(!head("/", ["Upgrade": "websocket"]).isWebSocketUpgrade)
    #expect(!head("/").isWebSocketUpgrade)
  }

  @Test func encodedHeadParsesBack() throws {
    let original = HTTPRequestHead(
      method: "GET", target: "/rooms/a?x=1", headers: ["Host": "h:1", "Upgrade": "websocket"])
    var parser = HTTPRequestParser()
    parser.append(original.encode())
    #expect(try parser.next()?.head == original)
  }
}
