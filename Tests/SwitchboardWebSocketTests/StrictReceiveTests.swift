import SwitchboardTestSupport
import Testing

@testable import SwitchboardWebSocket

/// The strict RFC 6455 behaviours: a reply to a valid frame is encoded before the close
/// frame of an error later in the same read, and invalid UTF-8 fails at the byte that makes
/// it invalid — inside a frame and across fragments — however the bytes are cut.
@Suite(.onTestThreads)
struct StrictReceiveTests {
  static let key: UInt32 = 0x1234_5678

  func server(deflate: PerMessageDeflate.Parameters? = nil) -> WebSocketConnection {
    WebSocketConnection(role: .server, deflate: deflate)
  }

  func masked(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true, rsv1: Bool = false) -> [UInt8] {
    WebSocketFrameEncoder.encode(opcode: opcode, payload: payload, fin: fin, rsv1: rsv1, maskKey: Self.key)
  }

  /// Feeds `chunks` one at a time through `nextAction()`, echoing each message the way the
  /// `/echo` shell does; returns what the peer would see (the echoes and the close frame,
  /// in the order they were written) and the chunk index at which the connection closed.
  func echo(_ connection: inout WebSocketConnection, _ chunks: [[UInt8]]) -> (
    written: [[UInt8]], closedAt: Int?, code: WebSocketCloseCode??
  ) {
    var written: [[UInt8]] = []
    for (index, chunk) in chunks.enumerated() {
      chunk.withUnsafeBytes { connection.append($0) }
      while let action = connection.nextAction() {
        switch action {
        case .send(let bytes): written.append(bytes)
        case .text(let text): if let frame = connection.sendText(text) { written.append(frame) }
        case .binary(let data): if let frame = connection.sendBinary(data) { written.append(frame) }
        case .ping, .pong: break
        case .close(let code, _): return (written, index, code)
        }
      }
    }
    return (written, nil, nil)
  }

  func unmaskedText(_ text: String) -> [UInt8] { WebSocketFrameEncoder.encode(opcode: .text, payload: Array(text.utf8)) }
  func closeFrame(_ code: WebSocketCloseCode) -> [UInt8] {
    WebSocketFrameEncoder.encode(opcode: .close, payload: [UInt8(code.code >> 8), UInt8(code.code & 0xFF)])
  }

  // MARK: Replies before the close

  /// Autobahn 3.2-style: a good message, then a frame with a reserved bit, then a ping —
  /// in one read, byte by byte and in random cuts.
  @Test(arguments: Split.allCases)
  func echoOfEarlierFramesPrecedesTheClose(split: Split) {
    var bytes = masked(.text, Array("Hello, world!".utf8))
    bytes += WebSocketFrameEncoder.encode(opcode: .text, payload: Array("bad".utf8), maskKey: Self.key).enumerated()
      .map { $0.offset == 0 ? $0.element | 0x20 : $0.element }  // RSV2
    bytes += masked(.ping, [])
    var connection = server()
    let (written, closedAt, code) = echo(&connection, split.chunks(bytes))
    #expect(closedAt != nil)
    #expect(code == .some(.protocolError))
    #expect(written.count == 2)
    #expect(written.first == unmaskedText("Hello, world!"))
    #expect(written.last.map { [$0[0], $0[2], $0[3]] } == [0x88, 0x03, 0xEA])
    #expect(connection.hasFailed)
  }

  /// Autobahn 5.15-style: a fragmented message, a continuation with nothing to continue, then
  /// a message: the first is echoed, the stray continuation fails at its header.
  @Test func strayContinuationAfterAMessageIsRefusedAfterTheEcho() {
    let bytes =
      masked(.text, Array("frag".utf8), fin: false) + masked(.continuation, Array("ment1".utf8))
      + masked(.continuation, Array("x".utf8), fin: false) + masked(.text, Array("after".utf8))
    var connection = server()
    let (written, _, code) = echo(&connection, [bytes])
    #expect(code == .some(.protocolError))
    #expect(written.first == unmaskedText("fragment1"))
    #expect(written.count == 2)
  }

  /// A ping's pong and a received close's echo also keep their place.
  @Test func pongAndCloseEchoKeepTheirOrder() {
    let bytes = masked(.text, Array("a".utf8)) + masked(.ping, [1]) + masked(.close, [0x03, 0xE8])
    var connection = server()
    let (written, _, code) = echo(&connection, [bytes])
    #expect(code == .some(.normalClosure))
    #expect(written.count == 3)
    #expect(written[0] == unmaskedText("a"))
    #expect(written[1] == WebSocketFrameEncoder.encode(opcode: .pong, payload: [1]))
    #expect(written[2] == closeFrame(.normalClosure))
    #expect(!connection.hasFailed)
  }

  /// `receive(_:)` keeps its all-at-once contract.
  @Test func receiveStillReturnsEveryActionOfARead() {
    var connection = server()
    let actions = connection.receive(masked(.text, Array("x".utf8)) + masked(.ping, []))
    #expect(actions == [.text("x"), .send(WebSocketFrameEncoder.encode(opcode: .pong, payload: [])), .ping([])])
  }

  // MARK: Incremental UTF-8

  /// A text message carrying `bytes` in one masked frame, fed one byte at a time: a valid one
  /// is echoed; an invalid one fails with 1007 at the byte that makes it invalid, before the
  /// frame is complete.
  @Test(arguments: 0..<UTF8ValidatorTests.invalid.count)
  func invalidTextFailsAtTheBadByteInsideAFrame(index: Int) {
    let (name, h, failAt) = UTF8ValidatorTests.invalid[index]
    let payload = hex(h) + Array("-then-more-bytes".utf8)
    let frame = masked(.text, payload)
    let headerCount = frame.count - payload.count
    var connection = server()
    let (written, closedAt, code) = echo(&connection, Split.bytewise.chunks(frame))
    #expect(code == .some(.invalidFramePayloadData), "\(name)")
    #expect(closedAt == headerCount + failAt, "\(name): closed at byte \(String(describing: closedAt))")
    #expect(written.count == 1, "\(name)")
  }

  /// The same sequences as fragments cut at every position: the fragment holding the bad
  /// byte fails, and, fed byte by byte, at that byte.
  @Test(arguments: 0..<UTF8ValidatorTests.invalid.count)
  func invalidTextFailsInTheFragmentHoldingTheBadByte(index: Int) {
    let (name, h, failAt) = UTF8ValidatorTests.invalid[index]
    let payload = hex(h)
    for cut in 0...payload.count {
      let first = masked(.text, Array(payload[..<cut]), fin: false)
      let second = masked(.continuation, Array(payload[cut...]))
      var connection = server()
      let (_, closedAt, code) = echo(&connection, Split.bytewise.chunks(first + second))
      #expect(code == .some(.invalidFramePayloadData), "\(name) cut \(cut)")
      let expected = failAt < cut ? (first.count - cut) + failAt : first.count + (second.count - (payload.count - cut)) + (failAt - cut)
      #expect(closedAt == expected, "\(name) cut \(cut)")
    }
  }

  /// Valid text, cut into two fragments at every position and fed in every split, arrives
  /// intact; one that ends mid character fails when its final fragment is complete.
  @Test(arguments: UTF8ValidatorTests.valid)
  func validTextCutAnywhereIsDelivered(string: String) {
    let payload = Array(string.utf8)
    for cut in 0...payload.count {
      let bytes = masked(.text, Array(payload[..<cut]), fin: false) + masked(.continuation, Array(payload[cut...]))
      for split in Split.allCases {
        var connection = server()
        let (written, closedAt, _) = echo(&connection, split.chunks(bytes))
        #expect(closedAt == nil && written == [unmaskedText(string)], "cut \(cut) \(split)")
      }
    }
  }

  @Test func textEndingMidCharacterFailsWhenTheFinalFrameIsComplete() {
    let frame = masked(.text, Array("ok".utf8) + [0xE2, 0x82])
    var connection = server()
    let (_, closedAt, code) = echo(&connection, Split.bytewise.chunks(frame))
    #expect(code == .some(.invalidFramePayloadData))
    #expect(closedAt == frame.count - 1)
  }

  /// Binary payloads are never validated, in one frame or in fragments.
  @Test func binaryIsNotValidated() {
    let bytes = masked(.binary, [0xFF, 0xC0], fin: false) + masked(.continuation, [0x80])
    var connection = server()
    let (written, closedAt, _) = echo(&connection, Split.bytewise.chunks(bytes))
    #expect(closedAt == nil)
    #expect(written == [WebSocketFrameEncoder.encode(opcode: .binary, payload: [0xFF, 0xC0, 0x80])])
  }

  /// Compressed text is validated on the inflated bytes as they come out, across fragments.
  @Test func compressedInvalidTextIs1007AndValidIsDelivered() throws {
    var sender = try PerMessageDeflate(role: .client, parameters: PerMessageDeflate.Parameters())
    let good = try sender.compress(Array("κόσμε and more".utf8))
    let bad = try sender.compress(hex("ce ba e1 bd b9 cf 83 ce bc ce b5 f4 90 80 80 65 64"))
    let half = good.count / 2
    var connection = server(deflate: PerMessageDeflate.Parameters())
    let goodFrames =
      masked(.text, Array(good[..<half]), fin: false, rsv1: true) + masked(.continuation, Array(good[half...]))
    let (written, closedAt, code) = echo(&connection, [goodFrames, masked(.text, bad, rsv1: true)])
    #expect(closedAt == 1)
    #expect(code == .some(.invalidFramePayloadData))
    #expect(written.count == 2)
  }

  /// The decoder on its own, with message checks: the order errors fail at the header, and
  /// a mask phase that does not start at 0 is undone right (masked bytes cut at odd places).
  @Test func decoderChecksOrderAtTheHeaderAndUnmasksEveryPhase() {
    var decoder = WebSocketFrameDecoder(role: .server, checksMessages: true)
    let stray = masked(.continuation, Array("0123456789".utf8))
    Array(stray.prefix(2)).withUnsafeBytes { decoder.append($0) }
    #expect(throws: WebSocketError.protocolError) { try decoder.nextFrame() }
    let text = Array("ünïcödé text, long enough to cross several mask phases: ✓✓✓".utf8)
    for split in Split.allCases {
      var d = WebSocketFrameDecoder(role: .server, checksMessages: true)
      let result = d.decodeAll(split.chunks(masked(.text, text)))
      #expect((try? result.get())?.first?.payload == text, "\(split)")
    }
  }
}
