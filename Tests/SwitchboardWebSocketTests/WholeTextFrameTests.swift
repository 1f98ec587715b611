import SwitchboardTestSupport
import Testing

@testable import SwitchboardWebSocket

/// A whole text message in one frame is unmasked straight into its `String`
/// (`WebSocketFrameDecoder.next(wholeTextUpTo:)`), skipping the UTF-8 pass when the
/// unmasking saw only ASCII. It must decode exactly what the frame path does: the same
/// strings, the same errors at the same point, however the bytes are cut.
@Suite(.onTestThreads)
struct WholeTextFrameTests {
  /// Texts that put ASCII and multi-byte characters at every offset of an 8-byte word, and
  /// payloads that are not UTF-8 (a stray byte, an overlong form, a surrogate, a character
  /// cut at the end, a high byte alone in an ASCII word).
  static let payloads: [[UInt8]] = {
    var texts: [[UInt8]] = [[], Array("a".utf8), Array("héllo wörld".utf8), Array("😀".utf8)]
    for length in [7, 8, 9, 15, 16, 17, 63, 64, 65, 125, 126, 300] {
      texts.append(Array(String(repeating: "x", count: length).utf8))
      for at in [0, length / 2, max(0, length - 1)] {
        var bytes = Array(String(repeating: "y", count: length).utf8)
        bytes.replaceSubrange(at..<min(at + 1, bytes.count), with: Array("κ".utf8))
        texts.append(bytes)
      }
    }
    let invalid: [[UInt8]] = [
      [0xFF], [0x61, 0xC0, 0x80], [0xED, 0xA0, 0x80], Array("abc".utf8) + [0xE2, 0x82],
      Array("abcdefg".utf8) + [0x80] + Array("hijklmnop".utf8), [0xF4, 0x90, 0x80, 0x80],
    ]
    return texts + invalid
  }()

  /// How whole text frames are taken out of the decoder.
  enum Path {
    /// `nextFrame()`: every frame an array.
    case frames
    /// `next(wholeTextUpTo:)`: whole texts as strings.
    case strings
    /// `next(wholeTextUpTo:inPlace: true)`: whole texts left in the buffer.
    case inPlace
  }

  /// Every frame the chunks decode to, through `path`, and the error that stopped the
  /// decoder.
  static func decode(_ chunks: [[UInt8]], _ path: Path, validates: Bool = true) -> (
    frames: [WebSocketFrame], error: WebSocketError?
  ) {
    var decoder = WebSocketFrameDecoder(role: .server, checksMessages: true, validatesUTF8: validates)
    var frames: [WebSocketFrame] = []
    do {
      for chunk in chunks {
        chunk.withUnsafeBytes { decoder.append($0) }
        if path == .frames {
          while let frame = try decoder.nextFrame() { frames.append(frame) }
          continue
        }
        while let decoded = try decoder.next(wholeTextUpTo: .max, inPlace: path == .inPlace) {
          switch decoded {
          case .frame(let frame): frames.append(frame)
          case .text(let text):
            #expect(path == .strings, "a string on the in-place path")
            frames.append(WebSocketFrame(opcode: .text, payload: Array(text.utf8)))
          case .textInPlace(let range):
            #expect(path == .inPlace, "in place without being asked")
            frames.append(WebSocketFrame(opcode: .text, payload: decoder.withBytes(in: range) { Array($0) }))
          }
        }
      }
    } catch {
      return (frames, error)
    }
    return (frames, nil)
  }

  @Test(arguments: Split.allCases)
  func theStringPathDecodesWhatTheFramePathDoes(split: Split) {
    for (index, payload) in Self.payloads.enumerated() {
      // A binary frame and a ping around the text: the frame path still serves them.
      let stream =
        clientFrame(.binary, [1, 2, 3], key: 0x0102_0304) + clientFrame(.text, payload, key: 0xA5C3_0F71 &+ UInt32(index))
        + clientFrame(.ping, [9], key: 7)
      let chunks = split.chunks(stream)
      let frames = Self.decode(chunks, .frames)
      for path in [Path.strings, .inPlace] {
        let other = Self.decode(chunks, path)
        #expect(other.frames == frames.frames, "payload \(index), \(path)")
        #expect(other.error?.closeCode == frames.error?.closeCode, "payload \(index), \(path)")
        #expect(other.error?.message == frames.error?.message, "payload \(index), \(path)")
      }
      let valid = String(validating: payload, as: UTF8.self) != nil
      #expect((frames.error == nil) == valid, "payload \(index)")
    }
  }

  @Test func withoutValidationATextIsRepairedAsBefore() {
    for payload in Self.payloads {
      var decoder = WebSocketFrameDecoder(role: .server, checksMessages: true, validatesUTF8: false)
      clientFrame(.text, payload).withUnsafeBytes { decoder.append($0) }
      guard case .text(let text)? = try? decoder.next(wholeTextUpTo: .max) else {
        Issue.record("no text for \(payload)")
        continue
      }
      #expect(text == String(decoding: payload, as: UTF8.self))
    }
  }

  /// Without validation nothing is left in place (the string path repairs what it does not
  /// check): the in-place path hands out only UTF-8.
  @Test func withoutValidationNothingIsLeftInPlace() throws {
    var decoder = WebSocketFrameDecoder(role: .server, checksMessages: true, validatesUTF8: false)
    clientFrame(.text, [0x61, 0xFF]).withUnsafeBytes { decoder.append($0) }
    guard case .text(let text)? = try decoder.next(wholeTextUpTo: .max, inPlace: true) else {
      Issue.record("no string for a text the decoder does not validate")
      return
    }
    #expect(text == "a\u{FFFD}")
  }

  /// The connection's in-place input: the text's bytes where ``WebSocketConnection/nextInput()``
  /// left them, actions as ``WebSocketConnection/nextAction()`` makes them, and the same
  /// close for invalid UTF-8.
  @Test func theConnectionLeavesWholeTextsInPlace() {
    var connection = WebSocketConnection(role: .server)
    let bytes = clientFrame(.text, Array("héllo".utf8)) + clientFrame(.ping, [7]) + clientFrame(.text, [0x61, 0xFF])
    bytes.withUnsafeBytes { connection.append($0) }
    guard case .receivedText(let range)? = connection.nextInput() else {
      Issue.record("the text was not left in place")
      return
    }
    #expect(connection.withReceivedText(range) { String(decoding: $0, as: UTF8.self) } == "héllo")
    guard case .action(.send)? = connection.nextInput(), case .action(.ping([7]))? = connection.nextInput() else {
      Issue.record("the ping's pong and the ping did not follow")
      return
    }
    guard case .action(.send)? = connection.nextInput(),
      case .action(.close(.invalidFramePayloadData?, _))? = connection.nextInput()
    else {
      Issue.record("invalid UTF-8 did not close with 1007")
      return
    }
    #expect(connection.nextInput() == nil)
  }

  /// Fragmented and over-the-limit texts keep the frame path (and its answers).
  @Test func fragmentsAndTextsOverTheLimitComeAsFrames() throws {
    var decoder = WebSocketFrameDecoder(role: .server, checksMessages: true)
    let bytes =
      clientFrame(.text, Array("ab".utf8), fin: false) + clientFrame(.continuation, Array("cd".utf8))
      + clientFrame(.text, Array("0123456789".utf8))
    bytes.withUnsafeBytes { decoder.append($0) }
    for expected in ["ab", "cd", "0123456789"] {
      guard case .frame(let frame)? = try decoder.next(wholeTextUpTo: 9) else {
        Issue.record("\(expected) did not come as a frame")
        return
      }
      #expect(frame.payload == Array(expected.utf8))
    }
  }

  /// The connection answers as it did: the text, 1007 for invalid UTF-8, 1009 for a text
  /// over the message limit but within the frame limit.
  @Test func theConnectionAnswersAsBefore() {
    var connection = WebSocketConnection(
      role: .server, configuration: WebSocketConfiguration(maxFrameSize: 100, maxMessageSize: 10))
    #expect(connection.receive(clientFrame(.text, Array("héllo".utf8))) == [.text("héllo")])
    let tooBig = connection.receive(clientFrame(.text, Array("0123456789a".utf8)))
    #expect(tooBig.count == 2 && tooBig.last.map { if case .close(.messageTooBig?, _) = $0 { true } else { false } } == true)

    var strict = WebSocketConnection(role: .server)
    let invalid = strict.receive(clientFrame(.text, Array("abc".utf8) + [0xFF]))
    #expect(invalid.count == 2 && invalid.last.map { if case .close(.invalidFramePayloadData?, _) = $0 { true } else { false } } == true)
  }

  /// The unmasking's ASCII report: the same output as `mask`, and `true` exactly when
  /// every output byte is below 0x80, at every length and position of a high byte (up
  /// to 72 bytes: four 16-byte vectors, then the words, the half word and the bytes).
  @Test func maskReportingASCIIAgreesWithTheBytes() {
    var rng = SeededGenerator(seed: 16)
    for length in 0...72 {
      for high in [-1] + Array(0..<length) {
        var plain = (0..<length).map { _ in UInt8.random(in: 0...0x7F, using: &rng) }
        if high >= 0 { plain[high] |= 0x80 }
        let key = UInt32.random(in: 0...UInt32.max, using: &rng)
        var wire = [UInt8](repeating: 0, count: length)
        plain.withUnsafeBytes { p in wire.withUnsafeMutableBytes { WebSocketFrameEncoder.mask(source: p, destination: $0, key: key) } }
        var out = [UInt8](repeating: 0, count: length)
        let ascii = wire.withUnsafeBytes { w in
          out.withUnsafeMutableBytes { WebSocketFrameEncoder.maskReportingASCII(source: w, destination: $0, key: key) }
        }
        #expect(out == plain)
        #expect(ascii == (high < 0), "length \(length), high byte at \(high)")
      }
    }
  }
}
