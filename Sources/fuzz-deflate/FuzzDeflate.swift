import SwitchboardFuzzSupport
import SwitchboardWebSocket

// libFuzzer target for permessage-deflate inflation (docs/TESTING.md, "Fuzzing"). The first
// byte picks the inflated-size limit and the peer's context takeover, the second where the
// message is cut into fragments; the rest is a compressed message as a peer sends it.
// Properties: the limit holds on the inflated size — output never passes limit + 1 bytes,
// even mid-failure, and a message that succeeds is at most `limit` bytes; the only
// failures are 1009 (too big) and 1002 (invalid data), and 1009 exactly when the same
// message inflated with room to spare is bigger than the limit; and compress → decompress
// gives the input back, twice in a row (context takeover), and fails with 1009 one byte
// under its size.

/// Room to spare: what a message may inflate to in the reference inflation.
let roomy = 1 << 18

/// Inflates `fragments` as one message; the output so far and the error, if one stopped it.
func inflate(_ fragments: [[UInt8]], limit: Int, codec: inout PerMessageDeflate) -> ([UInt8], WebSocketError?) {
  var output: [UInt8] = []
  do {
    for fragment in fragments {
      try fragment.withUnsafeBytes { try codec.decompressFragment($0, into: &output, limit: limit) }
      Fuzz.require(output.count <= limit, "fragment inflated past the limit without an error")
    }
    try codec.finishMessage(into: &output, limit: limit)
  } catch {
    return (output, error as? WebSocketError ?? .internal("\(error)"))
  }
  return (output, nil)
}

func codec(_ role: WebSocketRole, _ parameters: PerMessageDeflate.Parameters) -> PerMessageDeflate {
  do {
    return try PerMessageDeflate(role: role, parameters: parameters)
  } catch {
    fatalError("zlib did not initialise: \(error)")
  }
}

func check(_ bytes: [UInt8]) {
  var input = FuzzBytes(bytes)
  let options = input.byte()
  let limit = [0, 1, 100, 1000, 4096, 65536][Int(options & 0x7F) % 6]
  let parameters = PerMessageDeflate.Parameters(clientNoContextTakeover: options & 0x80 != 0)
  let cutSeed = input.byte()
  let message = input.rest()
  var server = codec(.server, parameters)
  let (output, error) = inflate(Fuzz.pieces(message, seed: cutSeed), limit: limit, codec: &server)
  Fuzz.require(output.count <= limit + 1, "\(output.count) bytes out for a limit of \(limit)")
  var reference = codec(.server, parameters)
  let (full, fullError) = inflate([message], limit: roomy, codec: &reference)
  switch error?.closeCode {
  case nil:
    Fuzz.require(fullError == nil && output == full, "fragments inflated differently")
  case .messageTooBig:
    Fuzz.require(output.count == limit + 1, "1009 with \(output.count) bytes for a limit of \(limit)")
    Fuzz.require(full.count > limit, "1009 for a message of \(full.count) bytes under a limit of \(limit)")
  case .protocolError:
    Fuzz.require(fullError != nil, "1002 in fragments, whole message fine")
  case let code?:
    Fuzz.require(false, "close code \(code)")
  }

  // Round trip: the same bytes as a message, compressed by a client and inflated by a server.
  var client = codec(.client, parameters)
  var receiver = codec(.server, parameters)
  for _ in 0..<2 {
    let compressed: [UInt8]
    do {
      compressed = try client.compress(message)
    } catch {
      fatalError("compress failed: \(error)")
    }
    let (back, backError) = inflate(Fuzz.pieces(compressed, seed: cutSeed), limit: message.count, codec: &receiver)
    Fuzz.require(backError == nil && back == message, "round trip: \(message) became \(back) (\(String(describing: backError)))")
  }
  if !message.isEmpty {
    var tight = codec(.server, PerMessageDeflate.Parameters(clientNoContextTakeover: true))
    var sender = codec(.client, parameters)
    let compressed = (try? sender.compress(message)) ?? []
    let (_, tightError) = inflate([compressed], limit: message.count - 1, codec: &tight)
    Fuzz.require(tightError?.closeCode == .messageTooBig, "a message one byte over the limit was accepted")
  }
}

#if FUZZ_DEFLATE
  @_cdecl("LLVMFuzzerTestOneInput")
  public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 { Fuzz.one(data, size, check) }
#else
  @main enum Replay { static func main() { Fuzz.replay(check) } }
#endif
