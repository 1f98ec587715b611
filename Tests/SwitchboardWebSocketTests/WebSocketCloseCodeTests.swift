import SwitchboardTestSupport
import Testing

@testable import SwitchboardWebSocket

@Suite(.onTestThreads) struct WebSocketCloseCodeTests {
  static let named: [(WebSocketCloseCode, UInt16)] = [
    (.normalClosure, 1000), (.goingAway, 1001), (.protocolError, 1002), (.unacceptableData, 1003),
    (.noStatus, 1005), (.abnormalClosure, 1006), (.invalidFramePayloadData, 1007), (.policyViolation, 1008),
    (.messageTooBig, 1009), (.missingExtension, 1010), (.unexpectedServerError, 1011), (.serviceRestart, 1012),
    (.tryAgainLater, 1013), (.badGateway, 1014), (.tlsHandshakeFailure, 1015),
  ]

  @Test func namedCodesMapToTheirNumbersBothWays() {
    for (name, number) in Self.named {
      #expect(name.code == number)
      #expect(UInt16(name) == number)
      #expect(WebSocketCloseCode(number) == name)
      if case .unknown = WebSocketCloseCode(number) { Issue.record("\(number) has a name") }
    }
  }

  @Test func everyNumberRoundTrips() {
    for number in UInt16.min...UInt16.max {
      #expect(WebSocketCloseCode(number).code == number)
    }
  }

  @Test func unnamedNumbersAreUnknown() {
    for number: UInt16 in [0, 999, 1004, 1016, 2999, 3000, 4000, 4999, 5000, 65535] {
      #expect(WebSocketCloseCode(number) == .unknown(number))
      if case .unknown(let kept) = WebSocketCloseCode(number) { #expect(kept == number) } else {
        Issue.record("\(number) should be unknown")
      }
    }
  }

  @Test func unknownWithANamedNumberEqualsTheName() {
    #expect(WebSocketCloseCode.unknown(1000) == .normalClosure)
    #expect(Set<WebSocketCloseCode>([.unknown(1001), .goingAway]).count == 1)
  }

  @Test func integerLiteralsConvert() {
    let code: WebSocketCloseCode = 1001
    #expect(code == .goingAway)
    let app: WebSocketCloseCode = 4001
    #expect(app == .unknown(4001))
    #expect(app.description == "4001")
  }

  /// RFC 6455 §7.4.1–7.4.2 and the IANA registry: what a close frame may carry.
  @Test func validInCloseFrameFollowsTheRFC() {
    for number in UInt16.min...UInt16.max {
      let expected = (1000...1003).contains(number) || (1007...1014).contains(number)
        || (3000...4999).contains(number)
      #expect(WebSocketCloseCode(number).isValidInCloseFrame == expected, "\(number)")
    }
    for never: WebSocketCloseCode in [.noStatus, .abnormalClosure, .tlsHandshakeFailure, 1004] {
      #expect(!never.isValidInCloseFrame)
    }
  }

  @Test func errorsMapToNamedCodes() {
    #expect(WebSocketError.protocolError.closeCode == .protocolError)
    #expect(WebSocketError.invalidUTF8.closeCode == .invalidFramePayloadData)
    #expect(WebSocketError.policy.closeCode == .policyViolation)
    #expect(WebSocketError.messageTooBig.closeCode == .messageTooBig)
    #expect(WebSocketError.internal.closeCode == .unexpectedServerError)
    #expect(WebSocketError.handshakeFailed.closeCode == .protocolError)
    #expect(WebSocketError.protocolError("x").description == "WebSocketError(1002): x")
  }

  @Test func closePayloadCarriesTheNumberBigEndian() throws {
    #expect(WebSocketConnection.closePayload(code: .goingAway, reason: "") == [0x03, 0xE9])
    #expect(WebSocketConnection.closePayload(code: 4001, reason: "") == [0x0F, 0xA1])
    #expect(WebSocketConnection.closePayload(code: nil, reason: "ignored") == [])
    let parsed = try WebSocketConnection.parseClosePayload([0x03, 0xE9, 0x61], validateUTF8: true)
    #expect(parsed.code == .goingAway)
    #expect(parsed.reason == "a")
  }
}
