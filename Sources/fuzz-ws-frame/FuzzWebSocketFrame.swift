import SwitchboardFuzzSupport
import SwitchboardWebSocket

// libFuzzer target for WebSocketFrameDecoder, both roles (docs/TESTING.md, "Fuzzing"). The
// first byte picks the role, whether RSV1 is allowed and the frame size limit; the rest is
// the byte stream. Properties: every frame keeps the RFC 6455 rules the decoder promises
// (size limit, control frames final and ≤ 125 bytes, RSV bits); pieces decode as the whole
// does; every frame, re-encoded with the masking its sender must use, decodes to itself,
// and with the wrong masking fails with 1002; and the UTF-8 validator agrees with the
// standard library on every text payload, fed whole, in two parts and in random pieces.
// Bit 5 of the first byte turns on the message checks (fragment order, UTF-8 validated as
// bytes arrive): then every uncompressed text message is UTF-8, and an input cut anywhere
// fails with the same code, at the latest where the whole input does. Whole text frames
// (up to half the limit) through `next(wholeTextUpTo:)`, as strings and in place, decode the
// same.

/// The frames `chunks` decode to, and the error that stopped the decoder (if any).
func decode(_ chunks: [[UInt8]], like template: WebSocketFrameDecoder) -> (
  frames: [WebSocketFrame], error: WebSocketError?
) {
  let (frames, error) = Fuzz.decodeAll(
    chunks, with: template, append: { $0.append(contentsOf: $1) },
    next: { (decoder: inout WebSocketFrameDecoder) throws(WebSocketError) in try decoder.nextFrame() })
  return (frames, error)
}

func check(_ bytes: [UInt8]) {
  var input = FuzzBytes(bytes)
  let options = input.byte()
  let role: WebSocketRole = options & 1 == 0 ? .server : .client
  let maxFrameSize = [0, 1, 125, 126, 127, 1000, 65535, 65536][Int(options >> 2) & 7]
  let checksMessages = options & 0x20 != 0
  let template = WebSocketFrameDecoder(
    role: role, maxFrameSize: maxFrameSize, allowsRSV1: options & 2 != 0, checksMessages: checksMessages)
  // Frames re-encoded one by one are decoded without message context.
  let single = WebSocketFrameDecoder(role: role, maxFrameSize: maxFrameSize, allowsRSV1: options & 2 != 0)
  let stream = input.rest()
  let whole = decode([stream], like: template)
  let cut = decode(Fuzz.pieces(stream, seed: options), like: template)
  Fuzz.require(
    cut.frames == whole.frames && cut.error?.closeCode == whole.error?.closeCode, "pieces decoded differently")
  // The connection's string path for whole text frames, on the same pieces: the same frames,
  // the same error. (Its strings hold what `String(decoding:)` makes of the payload: the
  // bytes themselves when they are UTF-8, which they are whenever the decoder validates.)
  let (strings, stringError) = Fuzz.decodeAll(
    Fuzz.pieces(stream, seed: options), with: template, append: { $0.append(contentsOf: $1) },
    next: { (decoder: inout WebSocketFrameDecoder) throws(WebSocketError) -> WebSocketFrame? in
      switch try decoder.next(wholeTextUpTo: maxFrameSize / 2) {
      case .frame(let frame): frame
      case .text(let text): WebSocketFrame(opcode: .text, payload: Array(text.utf8))
      case .textInPlace: fatalError("property failed: in place without being asked")
      case nil: nil
      }
    })
  Fuzz.require(
    strings == cut.frames.map { asString($0, upTo: maxFrameSize / 2) } && stringError?.closeCode == cut.error?.closeCode
      && stringError?.message == cut.error?.message, "the string path decoded differently")
  // The in-place path (the server's text dialect): the same frames and error again, a text
  // left in the buffer only when the decoder validates, and then UTF-8.
  let (inPlace, inPlaceError) = Fuzz.decodeAll(
    Fuzz.pieces(stream, seed: options), with: template, append: { $0.append(contentsOf: $1) },
    next: { (decoder: inout WebSocketFrameDecoder) throws(WebSocketError) -> WebSocketFrame? in
      switch try decoder.next(wholeTextUpTo: maxFrameSize / 2, inPlace: true) {
      case .frame(let frame): return frame
      case .text(let text): return WebSocketFrame(opcode: .text, payload: Array(text.utf8))
      case .textInPlace(let range):
        let payload = decoder.withBytes(in: range) { Array($0) }
        Fuzz.require(checksMessages && String(validating: payload, as: UTF8.self) != nil, "in place and not UTF-8")
        return WebSocketFrame(opcode: .text, payload: payload)
      case nil: return nil
      }
    })
  Fuzz.require(
    inPlace == strings && inPlaceError?.closeCode == stringError?.closeCode
      && inPlaceError?.message == stringError?.message, "the in-place path decoded differently")
  if let error = whole.error {
    let codes: [WebSocketCloseCode] = checksMessages ? [.protocolError, .messageTooBig, .invalidFramePayloadData] : [.protocolError, .messageTooBig]
    Fuzz.require(codes.contains(error.closeCode), "close code \(error.closeCode)")
  }
  if checksMessages { checkMessages(whole.frames) }
  for (index, frame) in whole.frames.enumerated() {
    Fuzz.require(frame.payload.count <= maxFrameSize, "frame over the limit")
    Fuzz.require(!frame.rsv2 && !frame.rsv3, "RSV2/RSV3")
    if frame.opcode.isControl {
      Fuzz.require(frame.fin && frame.payload.count <= 125, "control frame fragmented or over 125 bytes")
    }
    if frame.rsv1 {
      Fuzz.require(template.allowsRSV1 && !frame.opcode.isControl && frame.opcode != .continuation, "RSV1")
    }
    // The sender's side masks when this side is a server.
    let key = 0x37FA_213D &+ UInt32(index)
    let right = WebSocketFrameEncoder.encode(
      opcode: frame.opcode, payload: frame.payload, fin: frame.fin, rsv1: frame.rsv1,
      maskKey: role == .server ? key : nil)
    let again = decode([right], like: single)
    Fuzz.require(again.error == nil && again.frames == [frame], "round trip: \(frame) became \(again)")
    let wrong = WebSocketFrameEncoder.encode(
      opcode: frame.opcode, payload: frame.payload, fin: frame.fin, rsv1: frame.rsv1,
      maskKey: role == .server ? nil : key)
    Fuzz.require(decode([wrong], like: single).error?.closeCode == .protocolError, "wrong masking accepted")
    if frame.opcode == .text { checkUTF8(frame.payload) }
  }
}

/// `frame` as the string path delivers it: a whole text frame up to `limit` bytes with its
/// payload through `String(decoding:)`.
func asString(_ frame: WebSocketFrame, upTo limit: Int) -> WebSocketFrame {
  guard frame.opcode == .text, frame.fin, !frame.rsv1, frame.payload.count <= limit else { return frame }
  var text = frame
  text.payload = Array(String(decoding: frame.payload, as: UTF8.self).utf8)
  return text
}

/// With message checks: fragments come in order and every uncompressed text message the
/// frames make up (complete or not yet) is valid UTF-8 so far.
func checkMessages(_ frames: [WebSocketFrame]) {
  var text: [UInt8]? = nil
  var inMessage = false
  for frame in frames where !frame.opcode.isControl {
    Fuzz.require(inMessage == (frame.opcode == .continuation), "fragment order")
    if frame.opcode == .text && !frame.rsv1 { text = [] }
    text?.append(contentsOf: frame.payload)
    inMessage = !frame.fin
    if frame.fin, let done = text {
      Fuzz.require(String(validating: done, as: UTF8.self) != nil, "text message is not UTF-8")
    }
    if frame.fin { text = nil }
  }
  if let partial = text {
    var validator = UTF8Validator()
    Fuzz.require(validator.validate(partial), "unfinished text message is not UTF-8 so far")
  }
}

/// The validator against `String(validating:)`, whole and in two parts at 17 places or fewer.
func checkUTF8(_ payload: [UInt8]) {
  let valid = String(validating: payload, as: UTF8.self) != nil
  Fuzz.require(UTF8Validator.isValid(payload) == valid, "UTF8Validator disagrees on \(payload)")
  for split in stride(from: 0, through: payload.count, by: max(1, payload.count / 16)) {
    var validator = UTF8Validator()
    let first = validator.validate(Array(payload[..<split]))
    let second = first && validator.validate(Array(payload[split...]))
    Fuzz.require((second && validator.isComplete) == valid, "UTF8Validator split at \(split) disagrees")
  }
  var streaming = UTF8Validator()
  var ok = true
  for piece in Fuzz.pieces(payload, seed: UInt8(truncatingIfNeeded: payload.count)) where ok {
    ok = streaming.validate(piece)
  }
  Fuzz.require((ok && streaming.isComplete) == valid, "UTF8Validator in pieces disagrees")
}

#if FUZZ_WS_FRAME
  @_cdecl("LLVMFuzzerTestOneInput")
  public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 { Fuzz.one(data, size, check) }
#else
  @main enum Replay { static func main() { Fuzz.replay(check) } }
#endif
