import SwitchboardTestSupport
import Testing

@testable import SwitchboardWebSocket

@Suite(.onTestThreads)
struct WebSocketFrameEncoderTests {
  let hello = Array("Hello".utf8)

  @Test func unmaskedTextMatchesRFCExample() {
    #expect(WebSocketFrameEncoder.encode(opcode: .text, payload: hello) == hex("81 05 48 65 6c 6c 6f"))
  }

  @Test func maskedTextMatchesRFCExample() {
    let bytes = WebSocketFrameEncoder.encode(opcode: .text, payload: hello, maskKey: 0x37FA_213D)
    #expect(bytes == hex("81 85 37 fa 21 3d 7f 9f 4d 51 58"))
  }

  @Test func fragmentedTextMatchesRFCExample() {
    var out: [UInt8] = []
    WebSocketFrameEncoder.append(into: &out, opcode: .text, payload: Array("Hel".utf8), fin: false)
    WebSocketFrameEncoder.append(into: &out, opcode: .continuation, payload: Array("lo".utf8))
    #expect(out == hex("01 03 48 65 6c 80 02 6c 6f"))
  }

  @Test func pingAndMaskedPongMatchRFCExample() {
    #expect(WebSocketFrameEncoder.encode(opcode: .ping, payload: hello) == hex("89 05 48 65 6c 6c 6f"))
    #expect(
      WebSocketFrameEncoder.encode(opcode: .pong, payload: hello, maskKey: 0x37FA_213D)
        == hex("8a 85 37 fa 21 3d 7f 9f 4d 51 58"))
  }

  @Test func lengthEncodings() {
    let b256 = WebSocketFrameEncoder.encode(opcode: .binary, payload: [UInt8](repeating: 7, count: 256))
    #expect(Array(b256.prefix(4)) == hex("82 7e 01 00"))
    #expect(b256.count == 260)
    let b64k = WebSocketFrameEncoder.encode(opcode: .binary, payload: [UInt8](repeating: 7, count: 65536))
    #expect(Array(b64k.prefix(10)) == hex("82 7f 00 00 00 00 00 01 00 00"))
    #expect(b64k.count == 65546)
    let b125 = WebSocketFrameEncoder.encode(opcode: .binary, payload: [UInt8](repeating: 1, count: 125))
    #expect(Array(b125.prefix(2)) == hex("82 7d"))
    let b65535 = WebSocketFrameEncoder.encode(opcode: .binary, payload: [UInt8](repeating: 1, count: 65535))
    #expect(Array(b65535.prefix(4)) == hex("82 7e ff ff"))
  }

  @Test(arguments: [0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 125, 126, 1000, 65537])
  func maskingMatchesBytewiseXOR(count: Int) {
    var rng = SeededGenerator(seed: UInt64(count))
    let payload = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
    let key: UInt32 = 0xA1B2_C3D4
    let keyBytes: [UInt8] = [0xA1, 0xB2, 0xC3, 0xD4]
    let frame = WebSocketFrameEncoder.encode(opcode: .binary, payload: payload, maskKey: key)
    let header = WebSocketFrameEncoder.headerSize(payloadCount: count, masked: true)
    #expect(Array(frame[(header - 4)..<header]) == keyBytes)
    let expected = payload.enumerated().map { $0.element ^ keyBytes[$0.offset % 4] }
    #expect(Array(frame[header...]) == expected)
    var appended: [UInt8] = [0xEE]
    WebSocketFrameEncoder.append(into: &appended, opcode: .binary, payload: payload, maskKey: key)
    #expect(Array(appended.dropFirst()) == frame)
  }

  @Test func rsv1AndFinBits() {
    #expect(WebSocketFrameEncoder.encode(opcode: .text, payload: [], fin: true, rsv1: true) == hex("c1 00"))
    #expect(WebSocketFrameEncoder.encode(opcode: .binary, payload: [], fin: false) == hex("02 00"))
  }
}
