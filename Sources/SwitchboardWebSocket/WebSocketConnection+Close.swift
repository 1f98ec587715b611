extension WebSocketConnection {
  /// Close code 1000, normal closure, as a number.
  @available(*, deprecated, message: "use WebSocketCloseCode.normalClosure")
  public static let normalClosure: UInt16 = 1000

  /// Whether `code` may appear in a close frame received from a peer: the same answer as
  /// ``WebSocketCloseCode/isValidInCloseFrame`` (1000–1003, 1007–1014 and 3000–4999).
  @available(*, deprecated, message: "use WebSocketCloseCode(code).isValidInCloseFrame")
  public static func isValidCloseCode(_ code: UInt16) -> Bool {
    WebSocketCloseCode(code).isValidInCloseFrame
  }

  /// Parses and checks a received close payload.
  /// - Returns: The code (`nil` for an empty payload) and reason.
  /// - Throws: 1002 (`.protocolError`) for a 1-byte payload or a code not valid in a close
  ///   frame, 1007 (`.invalidFramePayloadData`) for a reason that is not UTF-8 (when
  ///   `validateUTF8`).
  static func parseClosePayload(
    _ payload: [UInt8], validateUTF8: Bool
  ) throws(WebSocketError) -> (code: WebSocketCloseCode?, reason: String) {
    if payload.isEmpty { return (nil, "") }
    guard payload.count >= 2 else { throw .protocolError("close frame with a 1-byte payload") }
    let code = WebSocketCloseCode(UInt16(payload[0]) << 8 | UInt16(payload[1]))
    guard code.isValidInCloseFrame else { throw .protocolError("invalid close code \(code)") }
    let reasonBytes = payload[2...]
    if validateUTF8 {
      let valid = reasonBytes.withUnsafeBytes { UTF8Validator.isValid($0) }
      guard valid else { throw .invalidUTF8("close reason is not UTF-8") }
    }
    return (code, String(decoding: reasonBytes, as: UTF8.self))
  }

  /// A close frame payload: the code big-endian, then the reason cut to at most 123
  /// bytes on a character boundary.
  package static func closePayload(code: WebSocketCloseCode?, reason: String) -> [UInt8] {
    guard let code = code?.code else { return [] }
    var payload: [UInt8] = [UInt8(code >> 8), UInt8(code & 0xFF)]
    var reasonBytes = 0
    for character in reason {
      let utf8 = character.utf8
      if reasonBytes + utf8.count > 123 { break }
      payload.append(contentsOf: utf8)
      reasonBytes += utf8.count
    }
    return payload
  }
}
