import SwitchboardFuzzSupport
import SwitchboardHTTP
import SwitchboardWebSocket

// libFuzzer target for the WebSocket opening handshake, both sides (docs/TESTING.md,
// "Fuzzing"). The first byte picks one of three checks:
// - server: the rest is a request head; what the server accepts carries the right
//   Sec-WebSocket-Accept, a subprotocol it supports, window bits within 8–15, and a 101
//   response that parses;
// - client: the rest is a response head, checked against a fixed offer; what the client
//   accepts holds only what was offered;
// - round trip: the rest chooses a client request (path, subprotocols, compression offer,
//   key) and server preferences; the server must accept the client's own request and the
//   client the server's answer, and both must agree on subprotocol and compression.

/// What the server supports in the server check.
let serverOptions = WebSocketHandshake.ServerOptions(
  subprotocols: ["chat", "superchat"],
  deflate: PerMessageDeflate.Parameters(serverMaxWindowBits: 12, clientMaxWindowBits: 10))

/// The first request head in `bytes`, if one parses.
func requestHead(_ bytes: [UInt8]) -> HTTPRequestHead? {
  var parser = HTTPRequestParser()
  parser.append(bytes)
  return (try? parser.next())??.head
}

/// The first response head in `bytes`, if one parses.
func responseHead(_ bytes: [UInt8]) -> HTTPResponseHead? {
  var parser = HTTPResponseParser()
  parser.append(bytes)
  return (try? parser.next()) ?? nil
}

/// Window bits inside what RFC 7692 allows.
func checkWindow(_ parameters: PerMessageDeflate.Parameters?) {
  guard let parameters else { return }
  Fuzz.require((8...15).contains(parameters.serverMaxWindowBits), "server window \(parameters)")
  Fuzz.require((8...15).contains(parameters.clientMaxWindowBits), "client window \(parameters)")
}

func checkServer(_ bytes: [UInt8]) {
  guard let head = requestHead(bytes) else { return }
  switch WebSocketHandshake.serverResponse(to: head, options: serverOptions) {
  case .accept(let accept):
    let key = head.headers["Sec-WebSocket-Key"]?.trimmingCharacters() ?? ""
    Fuzz.require(WebSocketHandshake.isValidKey(key), "accepted the key \(key)")
    let response = responseHead(accept.responseBytes)
    Fuzz.require(response?.status == 101, "101 does not parse: \(accept.response)")
    Fuzz.require(
      response?.headers["Sec-WebSocket-Accept"] == WebSocketHandshake.acceptValue(forKey: key), "wrong accept")
    Fuzz.require(accept.subprotocol.map(serverOptions.subprotocols.contains) ?? true, "subprotocol")
    checkWindow(accept.deflate)
    if let deflate = accept.deflate {
      Fuzz.require(deflate.serverMaxWindowBits <= 12 && deflate.clientMaxWindowBits <= 15, "above preferences")
    }
  case .reject(let response, _):
    Fuzz.require([400, 405, 426].contains(response.status), "rejected with \(response.status)")
  }
}

func checkClient(_ bytes: [UInt8], offer: UInt8) {
  guard let head = responseHead(bytes) else { return }
  let deflate = offer & 1 == 0 ? nil : PerMessageDeflate.Parameters(
    serverNoContextTakeover: offer & 2 != 0, clientNoContextTakeover: offer & 4 != 0,
    serverMaxWindowBits: 8 + Int(offer >> 3) % 8, clientMaxWindowBits: 15 - Int(offer >> 5))
  // The RFC 6455 example nonce: key "dGhlIHNhbXBsZSBub25jZQ==", accept "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=".
  let request = WebSocketHandshake.clientRequest(
    host: "example.com", subprotocols: ["chat", "superchat"], deflate: deflate,
    keyBytes: Array("the sample nonce".utf8))
  guard let result = try? request.validate(head) else { return }
  Fuzz.require(head.status == 101, "accepted status \(head.status)")
  Fuzz.require(result.subprotocol.map(request.subprotocols.contains) ?? true, "subprotocol not offered")
  Fuzz.require(deflate != nil || result.deflate == nil, "compression not offered")
  checkWindow(result.deflate)
  if let offered = deflate, let agreed = result.deflate {
    Fuzz.require(agreed.serverMaxWindowBits <= offered.serverMaxWindowBits, "server window above the offer")
    Fuzz.require(agreed.clientMaxWindowBits <= offered.clientMaxWindowBits, "client window above the offer")
    Fuzz.require(!offered.serverNoContextTakeover || agreed.serverNoContextTakeover, "takeover")
  }
}

func checkRoundTrip(_ input: inout FuzzBytes) {
  let flags = input.byte()
  let offer = flags & 1 == 0 ? nil : PerMessageDeflate.Parameters(
    serverNoContextTakeover: flags & 2 != 0, clientNoContextTakeover: flags & 4 != 0,
    serverMaxWindowBits: input.pick(Array(8...15)), clientMaxWindowBits: input.pick(Array(8...15)))
  let preferences = flags & 8 == 0 ? nil : PerMessageDeflate.Parameters(
    serverNoContextTakeover: flags & 16 != 0, clientNoContextTakeover: flags & 32 != 0,
    serverMaxWindowBits: input.pick(Array(8...15)), clientMaxWindowBits: input.pick(Array(8...15)))
  let names = ["chat", "superchat", "v1.json", "x"]
  let offered = names.filter { _ in input.byte() & 1 == 1 }
  let supported = names.filter { _ in input.byte() & 1 == 1 }
  let keyBytes = (0..<16).map { _ in input.byte() }
  // A path of visible ASCII, as a client writes it.
  let path = "/" + String(decoding: input.field().map { 0x21 + $0 % 0x5E }, as: UTF8.self)
  let request = WebSocketHandshake.clientRequest(
    host: "127.0.0.1:8080", path: path, subprotocols: offered, deflate: offer, keyBytes: keyBytes)
  guard let head = requestHead(request.requestBytes) else {
    Fuzz.require(false, "the client's request does not parse: \(request.head)")
    return
  }
  let options = WebSocketHandshake.ServerOptions(subprotocols: supported, deflate: preferences)
  guard case .accept(let accept) = WebSocketHandshake.serverResponse(to: head, options: options) else {
    Fuzz.require(false, "the server refused the client's request: \(head)")
    return
  }
  Fuzz.require(accept.path == head.path, "path")
  Fuzz.require(accept.subprotocol == offered.first(where: supported.contains), "subprotocol choice")
  Fuzz.require((accept.deflate != nil) == (offer != nil && preferences != nil), "compression agreed: \(accept)")
  guard let response = responseHead(accept.responseBytes) else {
    Fuzz.require(false, "the server's response does not parse: \(accept.response)")
    return
  }
  do {
    let result = try request.validate(response)
    Fuzz.require(result.subprotocol == accept.subprotocol, "subprotocol: \(result) vs \(accept)")
    Fuzz.require(result.deflate == accept.deflate, "compression: client \(result) vs server \(accept)")
  } catch {
    Fuzz.require(false, "the client refused the server's answer: \(error)\n\(response)")
  }
}

func check(_ bytes: [UInt8]) {
  var input = FuzzBytes(bytes)
  let mode = input.byte()
  switch mode % 3 {
  case 0: checkServer(input.rest())
  case 1: checkClient(input.rest(), offer: mode)
  default: checkRoundTrip(&input)
  }
}

extension String {
  /// Without surrounding spaces and tabs.
  func trimmingCharacters() -> String {
    String(decoding: utf8.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed(),
      as: UTF8.self)
  }
}

#if FUZZ_WS_HANDSHAKE
  @_cdecl("LLVMFuzzerTestOneInput")
  public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 { Fuzz.one(data, size, check) }
#else
  @main enum Replay { static func main() { Fuzz.replay(check) } }
#endif
