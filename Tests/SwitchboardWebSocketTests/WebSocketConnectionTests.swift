import SwitchboardTestSupport
import Testing

@testable import SwitchboardWebSocket

@Suite(.onTestThreads)
struct WebSocketConnectionTests {
  let hello = Array("Hello".utf8)

  func server(_ configuration: WebSocketConfiguration = .default) -> WebSocketConnection {
    WebSocketConnection(role: .server, configuration: configuration)
  }

  @Test func deliversSingleFrameTextAndBinary() {
    var ws = server()
    #expect(ws.receive(clientFrame(.text, hello)) == [.text("Hello")])
    #expect(ws.receive(clientFrame(.binary, [0, 1, 2])) == [.binary([0, 1, 2])])
    #expect(ws.receive(clientFrame(.text, [])) == [.text("")])
  }

  @Test func assemblesFragmentsWithPingInterleaved() {
    var ws = server()
    let bytes =
      clientFrame(.text, Array("Hel".utf8), fin: false) + clientFrame(.ping, [7])
      + clientFrame(.continuation, Array("l".utf8), fin: false) + clientFrame(.pong, [8])
      + clientFrame(.continuation, Array("o".utf8))
    let expected: [WebSocketAction] = [.send(hex("8a 01 07")), .ping([7]), .pong([8]), .text("Hello")]
    for split in Split.allCases {
      var ws = server()
      #expect(ws.receiveAll(split.chunks(bytes)) == expected, "\(split)")
    }
    #expect(ws.receive(bytes) == expected)
  }

  @Test func multiByteTextSplitAcrossFragmentsAtEveryPosition() {
    let text = "κόσμε 𝄞 €"
    let bytes = Array(text.utf8)
    for cut in 0...bytes.count {
      var ws = server()
      let wire =
        clientFrame(.text, Array(bytes[..<cut]), fin: false)
        + clientFrame(.continuation, Array(bytes[cut...]))
      #expect(ws.receive(wire) == [.text(text)], "cut \(cut)")
    }
    // One byte per fragment.
    var ws = server()
    var wire: [UInt8] = []
    for (i, byte) in bytes.enumerated() {
      wire += clientFrame(i == 0 ? .text : .continuation, [byte], fin: i == bytes.count - 1)
    }
    #expect(ws.receive(wire) == [.text(text)])
  }

  @Test func invalidUTF8FailsFastBeforeTheMessageEnds() {
    var ws = server()
    // κόσμε then an invalid sequence in the first fragment; the message is not finished.
    let first = hex("ce ba e1 bd b9 cf 83 ce bc ce b5 f4 90 80 80")
    let actions = ws.receive(clientFrame(.text, first, fin: false))
    #expect(actions.sentCloseCode == 1007)
    #expect(actions.closeCode == .some(1007))
    #expect(ws.phase == .closed)
    #expect(ws.receive(clientFrame(.continuation, hello)) == [])
  }

  @Test func invalidUTF8SplitAcrossFragmentsFailsInTheBadFragment() {
    var ws = server()
    #expect(ws.receive(clientFrame(.text, hex("41 ed"), fin: false)) == [])
    let actions = ws.receive(clientFrame(.continuation, hex("a0 80"), fin: false))
    #expect(actions.sentCloseCode == 1007)
  }

  @Test func textEndingMidCharacterIs1007() {
    var ws = server()
    #expect(ws.receive(clientFrame(.text, hex("41 e2 82"))).sentCloseCode == 1007)
    var ws2 = server()
    let wire = clientFrame(.text, hex("41 e2"), fin: false) + clientFrame(.continuation, hex("82"))
    #expect(ws2.receive(wire).sentCloseCode == 1007)
  }

  @Test func invalidUTF8AllowedWhenValidationIsOff() {
    var ws = server(WebSocketConfiguration(validateUTF8: false))
    #expect(ws.receive(clientFrame(.text, [0xFF])) == [.text("\u{FFFD}")])
  }

  @Test func fragmentationErrorsAre1002() {
    var a = server()
    #expect(a.receive(clientFrame(.continuation, hello)).sentCloseCode == 1002)
    var b = server()
    let wire = clientFrame(.text, hello, fin: false) + clientFrame(.text, hello)
    #expect(b.receive(wire).sentCloseCode == 1002)
    var c = server()
    let wire2 = clientFrame(.binary, hello, fin: false) + clientFrame(.binary, hello, fin: false)
    #expect(c.receive(wire2).sentCloseCode == 1002)
  }

  @Test func frameErrorsSendCloseWithTheirCode() {
    var a = server()
    let actions = a.receive(WebSocketFrameEncoder.encode(opcode: .text, payload: hello))  // unmasked
    #expect(actions.sentCloseCode == 1002)
    #expect(actions.closeCode == .some(1002))
    var b = server(WebSocketConfiguration(maxFrameSize: 4, maxMessageSize: 100))
    #expect(b.receive(clientFrame(.binary, hello)).sentCloseCode == 1009)
  }

  @Test func messageOverLimitIs1009() {
    var ws = server(WebSocketConfiguration(maxMessageSize: 8))
    #expect(
      ws.receive(clientFrame(.binary, [UInt8](repeating: 0, count: 8))) == [
        .binary(Array(repeating: 0, count: 8))
      ])
    let wire = clientFrame(.binary, hello, fin: false) + clientFrame(.continuation, hello)
    #expect(ws.receive(wire).sentCloseCode == 1009)
  }

  @Test func pingIsAnsweredAndReported() {
    var ws = server()
    #expect(ws.receive(clientFrame(.ping, hello)) == [.send(hex("8a 05 48 65 6c 6c 6f")), .ping(hello)])
    #expect(ws.receive(clientFrame(.pong, [])) == [.pong([])])
  }

  // MARK: Close handshake

  @Test func echoesPeerClose() {
    var ws = server()
    let payload: [UInt8] = [0x03, 0xE8] + Array("bye".utf8)
    #expect(
      ws.receive(clientFrame(.close, payload)) == [
        .send(hex("88 02 03 e8")), .close(code: 1000, reason: "bye"),
      ])
    #expect(ws.phase == .closed)
    #expect(ws.receive(clientFrame(.text, hello)) == [])
    #expect(ws.sendText("x") == nil)
    #expect(ws.close() == nil)
  }

  @Test func emptyCloseIsEchoedEmpty() {
    var ws = server()
    #expect(ws.receive(clientFrame(.close, [])) == [.send(hex("88 00")), .close(code: nil, reason: "")])
  }

  static let validCodes: [UInt16] = [
    1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999,
  ]
  static let invalidCodes: [UInt16] = [
    0, 1, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535,
  ]

  @Test(arguments: validCodes)
  func validCloseCodeIsEchoed(code: UInt16) {
    var ws = server()
    let actions = ws.receive(clientFrame(.close, [UInt8(code >> 8), UInt8(code & 0xFF)]))
    #expect(actions.sentCloseCode == code)
    #expect(actions.closeCode == .some(WebSocketCloseCode(code)))
  }

  @Test(arguments: invalidCodes)
  func invalidCloseCodeIs1002(code: UInt16) {
    var ws = server()
    #expect(ws.receive(clientFrame(.close, [UInt8(code >> 8), UInt8(code & 0xFF)])).sentCloseCode == 1002)
  }

  @Test func oneByteClosePayloadIs1002() {
    var ws = server()
    #expect(ws.receive(clientFrame(.close, [0x03])).sentCloseCode == 1002)
  }

  @Test func invalidUTF8CloseReasonIs1007() {
    var ws = server()
    #expect(
      ws.receive(clientFrame(.close, hex("03 e8 ce ba e1 bd b9 cf 83 ce bc ce b5 ed a0 80"))).sentCloseCode
        == 1007)
  }

  @Test func serverInitiatedCloseWaitsForPeer() {
    var ws = server()
    #expect(ws.close(code: 1001, reason: "going away") == hex("88 0c 03 e9") + Array("going away".utf8))
    #expect(ws.phase == .closing)
    #expect(ws.sendText("late") == nil)
    #expect(ws.ping() == nil)
    // Messages still arrive while closing; pings are not answered.
    #expect(ws.receive(clientFrame(.text, hello)) == [.text("Hello")])
    #expect(ws.receive(clientFrame(.ping, [])) == [.ping([])])
    #expect(ws.receive(clientFrame(.close, [0x03, 0xE9])) == [.close(code: 1001, reason: "")])
    #expect(ws.phase == .closed)
  }

  @Test func errorWhileClosingFinishesWithoutSecondCloseFrame() {
    var ws = server()
    _ = ws.close()
    #expect(
      ws.receive(clientFrame(.close, [0x00, 0x00])) == [.close(code: 1002, reason: "invalid close code 0")])
  }

  @Test func closeReasonIsTruncatedOnCharacterBoundary() throws {
    var ws = server()
    let closeFrame = ws.close(code: 1000, reason: String(repeating: "é", count: 100))
    let frame = try #require(closeFrame)
    #expect(frame[1] == 124)  // 2 + 61 × 2: a 62nd "é" would pass 123 reason bytes
    #expect(UTF8Validator.isValid(Array(frame[4...])))
  }

  // MARK: Sending

  @Test func serverSendsUnmaskedFrames() {
    var ws = server()
    #expect(ws.sendText("Hello") == hex("81 05 48 65 6c 6c 6f"))
    #expect(ws.sendBinary([1, 2]) == hex("82 02 01 02"))
    #expect(ws.ping(hello) == hex("89 05 48 65 6c 6c 6f"))
    #expect(ws.pong([]) == hex("8a 00"))
    #expect(ws.ping([UInt8](repeating: 0, count: 126)) == nil)
    #expect(WebSocketConnection.encodeServerFrame(text: "Hello") == hex("81 05 48 65 6c 6c 6f"))
    #expect(WebSocketConnection.encodeServerFrame(binary: [9]) == hex("82 01 09"))
  }

  @Test func clientMasksWithProvidedKeys() {
    var ws = WebSocketConnection(role: .client, maskKeyProvider: { 0x37FA_213D })
    #expect(ws.sendText("Hello") == hex("81 85 37 fa 21 3d 7f 9f 4d 51 58"))
    // Pong replies are masked too.
    #expect(
      ws.receive(hex("89 05 48 65 6c 6c 6f")) == [
        .send(hex("8a 85 37 fa 21 3d 7f 9f 4d 51 58")), .ping(hello),
      ])
    #expect(ws.receive(hex("81 05 48 65 6c 6c 6f")) == [.text("Hello")])
    // A masked frame from the server fails the connection.
    #expect(ws.receive(hex("81 85 37 fa 21 3d 7f 9f 4d 51 58")).closeCode == .some(1002))
  }

  @Test func clientAndServerTalk() {
    var keys = SeededGenerator(seed: 9)
    var client = WebSocketConnection(
      role: .client, maskKeyProvider: { UInt32.random(in: 0...UInt32.max, using: &keys) })
    var server = server()
    #expect(server.receive(client.sendText("hi")!) == [.text("hi")])
    #expect(client.receive(server.sendBinary([1, 2, 3])!) == [.binary([1, 2, 3])])
    let close = client.close()!
    let reply = server.receive(close)
    #expect(reply == [.send(hex("88 02 03 e8")), .close(code: 1000, reason: "")])
    guard case .send(let bytes) = reply.first else {
      Issue.record("the server did not answer the close")
      return
    }
    #expect(client.receive(bytes) == [.close(code: 1000, reason: "")])
  }

  @Test func sameActionsWholeBytewiseAndRandomSplits() {
    var wire: [UInt8] = []
    var rng = SeededGenerator(seed: 5)
    for i in 0..<40 {
      let text = String(repeating: "añ𝄞", count: i * 7)
      let bytes = Array(text.utf8)
      let cut = Int.random(in: 0...bytes.count, using: &rng)
      wire += clientFrame(.text, Array(bytes[..<cut]), fin: false)
      if i % 3 == 0 { wire += clientFrame(.ping, [UInt8(i)]) }
      wire += clientFrame(.continuation, Array(bytes[cut...]), key: UInt32(i))
      wire += clientFrame(.binary, bytes)
    }
    wire += clientFrame(.close, [0x03, 0xE8])
    var reference = server()
    let expected = reference.receive(wire)
    #expect(expected.count == 40 * 2 + 14 * 2 + 2)
    for split in Split.allCases {
      var ws = server()
      #expect(ws.receiveAll(split.chunks(wire)) == expected, "\(split)")
    }
  }
}
