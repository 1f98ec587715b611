import SwitchboardHTTP
import SwitchboardTestSupport
import Testing

@Suite(.onTestThreads)
struct HTTPHeadersTests {
  @Test func lookupIsCaseInsensitiveAndReturnsFirstValue() {
    let headers: HTTPHeaders = ["Set-Cookie": "a", "Host": "h", "set-cookie": "b"]
    #expect(headers["SET-COOKIE"] == "a")
    #expect(headers.values("set-Cookie") == ["a", "b"])
    #expect(headers["missing"] == nil)
    #expect(headers.values("missing").isEmpty)
  }

  @Test func orderAndDuplicatesArePreserved() {
    var headers = HTTPHeaders()
    headers.add(name: "B", value: "1")
    headers.add(name: "A", value: "2")
    headers.add(name: "b", value: "3")
    #expect(headers.map(\.name) == ["B", "A", "b"])
    #expect(headers.map(\.value) == ["1", "2", "3"])
    #expect(headers.count == 3)
  }

  @Test func replaceOrAddAndRemove() {
    var headers: HTTPHeaders = ["A": "1", "B": "2", "a": "3"]
    headers.replaceOrAdd(name: "A", value: "x")
    #expect(headers == ["A": "x", "B": "2"])
    headers.replaceOrAdd(name: "C", value: "y")
    #expect(headers == ["A": "x", "B": "2", "C": "y"])
    headers.remove(name: "b")
    #expect(headers == ["A": "x", "C": "y"])
  }

  @Test func tokenListsAreSearchedCaseInsensitively() {
    let headers: HTTPHeaders = ["Connection": "keep-alive, Upgrade", "Upgrade": "websocket", "Connection": "x"]
    #expect(headers.contains(token: "upgrade", in: "connection"))
    #expect(headers.contains(token: "KEEP-ALIVE", in: "Connection"))
    #expect(headers.contains(token: "x", in: "Connection"))
    #expect(!headers.contains(token: "close", in: "Connection"))
    #expect(!headers.contains(token: "keep", in: "Connection"))
    #expect(!headers.contains(token: "upgrade", in: "Missing"))
    #expect(HTTPHeaders([("Connection", " ,\tUpgrade ,")]).contains(token: "upgrade", in: "Connection"))
  }
}
