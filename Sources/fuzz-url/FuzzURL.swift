import SwitchboardClient
import SwitchboardFuzzSupport
import SwitchboardHTTP
import SwitchboardWire

// libFuzzer target for what reads URLs (docs/TESTING.md, "Fuzzing"): the percent-decoder,
// the request target's path and query, room names taken from `/rooms/NAME`, and the
// client's endpoint URLs. Properties: text without `%` (and `+`) decodes to itself, and
// any bytes percent-encoded decode to themselves; a path holds no query; a query built
// from encoded pairs reads back as those pairs (the first of a repeated key wins); a room
// name the server would accept holds no `/` and no control character; an endpoint that
// parses has a host and a port in range, and its description parses back to it.

func check(_ bytes: [UInt8]) {
  var input = FuzzBytes(bytes)
  let flags = input.byte()
  let text = String(decoding: input.rest(), as: UTF8.self)

  // The percent-decoder.
  // Bytes, not Characters: "+\u{596}" is one Character that is not "+".
  let hasPercent = text.utf8.contains(UInt8(ascii: "%")), hasPlus = text.utf8.contains(UInt8(ascii: "+"))
  if !hasPercent { Fuzz.require(text.removingURLPercentEncoding() == text, "decoded without a %") }
  if !hasPercent && !hasPlus {
    Fuzz.require(text.removingURLPercentEncoding(plusAsSpace: true) == text, "decoded without % or +")
  }
  Fuzz.require(encode(text, lower: flags & 1 != 0).removingURLPercentEncoding() == text, "encoded text")

  // Path and query of a request target.
  let head = HTTPRequestHead(method: "GET", target: text)
  Fuzz.require(
    !head.path.isEmpty && !head.path.utf8.contains(UInt8(ascii: "?")) && !head.path.utf8.contains(UInt8(ascii: "#")),
    "path \(head.path)")
  if head.rawQuery == nil { Fuzz.require(head.query.isEmpty, "query without a ?") }
  let pairs = bytes.split(separator: 0, omittingEmptySubsequences: false).map {
    String(decoding: $0, as: UTF8.self)
  }
  var expected: [String: String] = [:]
  var items: [String] = []
  for index in stride(from: 0, to: pairs.count - 1, by: 2) {
    items.append(encode(pairs[index], lower: false) + "=" + encode(pairs[index + 1], lower: true))
    if expected[pairs[index]] == nil { expected[pairs[index]] = pairs[index + 1] }
  }
  let built = HTTPRequestHead(method: "GET", target: "/p?" + items.joined(separator: "&"))
  Fuzz.require(built.query == expected, "query \(built.query) for \(expected)")

  // A room name from a path, as the server reads it.
  if let room = RoomName.validate(String(head.path.dropFirst()).removingURLPercentEncoding()) {
    Fuzz.require(!room.utf8.contains(UInt8(ascii: "/")) && !room.unicodeScalars.contains { $0.value < 0x20 }, "room \(room)")
    Fuzz.require((1...64).contains(room.count), "room of \(room.count) characters")
  }

  // The client's endpoint URLs.
  guard let endpoint = try? ChatEndpoint(text) else { return }
  Fuzz.require(!endpoint.host.isEmpty || endpoint.service != nil, "no host: \(endpoint)")
  Fuzz.require((1...65535).contains(endpoint.port) || endpoint.service != nil, "port \(endpoint.port)")
  // Bytes: "/" and a combining mark after it are one Character, and still a path.
  Fuzz.require(endpoint.path.utf8.first == UInt8(ascii: "/"), "path \(endpoint.path)")
  _ = endpoint.roomInPath
  var written = endpoint
  if endpoint.service == nil && endpoint.scheme != .ws && endpoint.scheme != .wss {
    written.path = "/"
    written.query = ""
  }
  let again = try? ChatEndpoint(endpoint.description)
  Fuzz.require(again == written, "\(text) → \(endpoint.description) → \(String(describing: again))")
}

/// Every byte of `text` as `%XX`.
func encode(_ text: String, lower: Bool) -> String {
  let hex = Array((lower ? "0123456789abcdef" : "0123456789ABCDEF").utf8)
  return String(decoding: text.utf8.flatMap { [UInt8(ascii: "%"), hex[Int($0 >> 4)], hex[Int($0 & 15)]] }, as: UTF8.self)
}

#if FUZZ_URL
  @_cdecl("LLVMFuzzerTestOneInput")
  public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 { Fuzz.one(data, size, check) }
#else
  @main enum Replay { static func main() { Fuzz.replay(check) } }
#endif
