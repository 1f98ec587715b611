import SwitchboardTestSupport
import Testing

@testable import SwitchboardWebSocket

@Suite(.onTestThreads)
struct WebSocketFrameDecoderTests {
  static let hello = Array("Hello".utf8)

  /// RFC 6455 section 5.7 examples: bytes, role that receives them, expected frames.
  static let rfcVectors: [(String, WebSocketRole, [WebSocketFrame])] = [
    ("81 05 48 65 6c 6c 6f", .client, [WebSocketFrame(opcode: .text, payload: hello)]),
    ("81 85 37 fa 21 3d 7f 9f 4d 51 58", .server, [WebSocketFrame(opcode: .text, payload: hello)]),
    (
      "01 03 48 65 6c 80 02 6c 6f", .client,
      [
        WebSocketFrame(fin: false, opcode: .text, payload: Array("Hel".utf8)),
        WebSocketFrame(opcode: .continuation, payload: Array("lo".utf8)),
      ]
    ),
    ("89 05 48 65 6c 6c 6f", .client, [WebSocketFrame(opcode: .ping, payload: hello)]),
    ("8a 85 37 fa 21 3d 7f 9f 4d 51 58", .server, [WebSocketFrame(opcode: .pong, payload: hello)]),
  ]

  @Test(arguments: 0..<rfcVectors.count)
  func decodesRFCExamples(index: Int) throws {
    let (bytes, role, frames) = Self.rfcVectors[index]
    for split in Split.allCases {
      var decoder = WebSocketFrameDecoder(role: role)
      #expect(try decoder.decodeAll(split.chunks(hex(bytes))).get() == frames, "\(split)")
    }
  }

  @Test(arguments: [0, 125, 126, 256, 65535, 65536, 100_000])
  func decodesLengths(count: Int) throws {
    let payload = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    var decoder = WebSocketFrameDecoder(role: .server)
    let frames = try decoder.decodeAll([clientFrame(.binary, payload)]).get()
    #expect(frames == [WebSocketFrame(opcode: .binary, payload: payload)])
    var client = WebSocketFrameDecoder(role: .client)
    let unmasked = WebSocketFrameEncoder.encode(opcode: .binary, payload: payload)
    #expect(try client.decodeAll([unmasked]).get() == frames)
  }

  @Test func acceptsNonMinimalLengthEncoding() throws {
    var decoder = WebSocketFrameDecoder(role: .client)
    let bytes = hex("82 7e 00 03 01 02 03 82 7f 00 00 00 00 00 00 00 02 04 05")
    let frames = try decoder.decodeAll([bytes]).get()
    #expect(frames.map(\.payload) == [[1, 2, 3], [4, 5]])
  }

  @Test func sameFramesWholeBytewiseAndRandomSplits() throws {
    var rng = SeededGenerator(seed: 42)
    var stream: [UInt8] = []
    var expected: [WebSocketFrame] = []
    for i in 0..<60 {
      let count = [0, 1, 5, 125, 126, 300, 70_000][i % 7]
      let payload = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
      let opcode: WebSocketOpcode = i % 5 == 0 ? .ping : .binary
      let body = opcode == .ping ? Array(payload.prefix(125)) : payload
      stream += clientFrame(opcode, body, key: UInt32.random(in: 0...UInt32.max, using: &rng))
      expected.append(WebSocketFrame(opcode: opcode, payload: body))
    }
    for split in Split.allCases where split != .bytewise || stream.count < 2_000_000 {
      var decoder = WebSocketFrameDecoder(role: .server)
      #expect(try decoder.decodeAll(split.chunks(stream)).get() == expected, "\(split)")
    }
  }

  @Test func appendSequenceVariant() throws {
    var decoder = WebSocketFrameDecoder(role: .client)
    decoder.append(contentsOf: hex("81 05 48 65 6c"))
    #expect(try decoder.nextFrame() == nil)
    decoder.append(contentsOf: hex("6c 6f").lazy.map { $0 })
    #expect(try decoder.nextFrame() == WebSocketFrame(opcode: .text, payload: Self.hello))
    #expect(try decoder.nextFrame() == nil)
    #expect(decoder.bufferedByteCount == 0)
  }

  /// Malformed frames: bytes (as received by `role`), the expected close code.
  static let malformed: [(String, String, WebSocketRole, WebSocketCloseCode)] = [
    ("unmasked frame from client", "81 00", .server, 1002),
    ("masked frame from server", "81 80 00 00 00 00", .client, 1002),
    ("reserved opcode 3", "83 80 00 00 00 00", .server, 1002),
    ("reserved opcode 7", "87 80 00 00 00 00", .server, 1002),
    ("reserved opcode 0xB", "8b 80 00 00 00 00", .server, 1002),
    ("reserved opcode 0xF", "8f 80 00 00 00 00", .server, 1002),
    ("RSV1 not negotiated", "c1 80 00 00 00 00", .server, 1002),
    ("RSV2", "a1 80 00 00 00 00", .server, 1002),
    ("RSV3", "91 80 00 00 00 00", .server, 1002),
    ("fragmented ping", "09 80 00 00 00 00", .server, 1002),
    ("fragmented close", "08 80 00 00 00 00", .server, 1002),
    ("ping over 125 bytes", "89 fe 00 7e", .server, 1002),
    ("close with 16-bit length", "88 7e 00 02", .client, 1002),
    ("64-bit length MSB set", "82 ff 80 00 00 00 00 00 00 00", .server, 1002),
    ("frame over the size limit", "82 ff 00 00 00 01 00 00 00 00", .server, 1009),
    ("16-bit length over a small limit", "82 fe ff ff", .server, 1009),
  ]

  @Test(arguments: 0..<malformed.count)
  func rejectsMalformedFrame(index: Int) {
    let (name, bytes, role, code) = Self.malformed[index]
    var decoder = WebSocketFrameDecoder(role: role, maxFrameSize: 60_000)
    // Only the header is given: errors must come before the payload is buffered.
    switch decoder.decodeAll([hex(bytes)]) {
    case .success(let frames): Issue.record("\(name): decoded \(frames)")
    case .failure(let error): #expect(error.closeCode == code, "\(name)")
    }
    // And the error sticks.
    #expect(throws: WebSocketError.self) { try decoder.nextFrame() }
  }

  @Test func rsv1AllowedWhenNegotiatedButNotOnControlOrContinuation() throws {
    var decoder = WebSocketFrameDecoder(role: .server, allowsRSV1: true)
    let frames = try decoder.decodeAll([clientFrame(.text, [1], rsv1: true)]).get()
    #expect(frames.first?.rsv1 == true)
    for opcode in [WebSocketOpcode.ping, .continuation] {
      var d = WebSocketFrameDecoder(role: .server, allowsRSV1: true)
      #expect(throws: WebSocketError.protocolError) {
        _ = try d.decodeAll([clientFrame(opcode, [1], rsv1: true)]).get()
      }
    }
  }

  @Test func bufferCompactsInsteadOfGrowing() throws {
    var decoder = WebSocketFrameDecoder(role: .server)
    let frame = clientFrame(.binary, [UInt8](repeating: 9, count: 1000))
    for _ in 0..<2000 {
      // Feed one and a half frames at a time so a partial frame is always left over.
      let chunk = frame + Array(frame.prefix(500))
      chunk.withUnsafeBytes { decoder.append($0) }
      while try decoder.nextFrame() != nil {}
      Array(frame.suffix(from: 500)).withUnsafeBytes { decoder.append($0) }
      while try decoder.nextFrame() != nil {}
      #expect(decoder.bufferedByteCount == 0)
    }
  }
}
