/// A token in JWS compact form (RFC 7515 §7.1), taken apart but not yet trusted: the pure,
/// I/O-free and crypto-free half of verification, with limits (``TokenLimits``).
///
/// `BASE64URL(header) . BASE64URL(payload) . BASE64URL(signature)`: exactly three segments,
/// each strict base64url (``Base64URL``); the header and the payload strict JSON objects
/// (``JSONParser``: UTF-8, no duplicate members, bounded depth); the header's `alg` one of
/// ``TokenAlgorithm``. Nothing in here is believed until ``TokenVerifier`` has checked the
/// signature over ``signingInput``; that is also why the payload's claims are only read
/// afterwards (a forged token is answered "signature invalid", whatever it claims).
public struct UnverifiedToken: Sendable, Hashable {
  /// The decoded header.
  public let header: TokenHeader
  /// The decoded payload (a JSON object; its claims are not yet interpreted).
  public let payload: JSONValue
  /// The bytes the signature covers: the first two segments and the dot between them.
  public let signingInput: [UInt8]
  /// The decoded signature.
  public let signature: [UInt8]

  /// Takes a compact token apart.
  /// - Throws: ``TokenError/tooLarge``, ``TokenError/malformed`` or
  ///   ``TokenError/unsupportedAlgorithm`` (see ``TokenLimits`` and ``TokenHeader``).
  public init(parsing token: some Collection<UInt8>, limits: TokenLimits = .default) throws(TokenError) {
    guard token.count <= limits.maxTokenLength else {
      throw TokenError.tooLarge.with("token longer than \(limits.maxTokenLength) bytes")
    }
    let bytes = Array(token)
    let dots = bytes.indices.filter { bytes[$0] == UInt8(ascii: ".") }
    guard dots.count == 2 else {
      if dots.count == 4 { throw TokenError.malformed.with("encrypted tokens (JWE) are not supported") }
      throw TokenError.malformed.with("\(dots.count + 1) segments, not 3")
    }
    let headerText = bytes[..<dots[0]]
    let payloadText = bytes[(dots[0] + 1)..<dots[1]]
    let signatureText = bytes[(dots[1] + 1)...]

    let headerJSON = try Self.segment(headerText, "header", maxBytes: limits.maxHeaderBytes, limits: limits)
    header = try TokenHeader(headerJSON)
    payload = try Self.segment(payloadText, "payload", maxBytes: limits.maxPayloadBytes, limits: limits)
    guard case .object = payload else { throw TokenError.malformed.with("payload is not a JSON object") }
    guard let signature = Base64URL.decode(signatureText) else {
      throw TokenError.malformed.with("signature is not base64url")
    }
    self.signature = signature
    signingInput = Array(bytes[..<dots[1]])
  }

  /// Takes a compact token apart; see ``init(parsing:limits:)-(some Collection<UInt8>,_)``.
  public init(parsing token: String, limits: TokenLimits = .default) throws(TokenError) {
    try self.init(parsing: token.utf8, limits: limits)
  }

  /// Interprets the payload's claims without any check of signature or time (for tools
  /// that show a token; never for deciding anything).
  public func unverifiedClaims(limits: TokenLimits = .default) throws(TokenError) -> TokenClaims {
    try TokenClaims(payload, limits: limits)
  }

  /// One base64url segment holding a JSON object, within `maxBytes` once decoded.
  private static func segment(
    _ text: ArraySlice<UInt8>, _ name: String, maxBytes: Int, limits: TokenLimits
  ) throws(TokenError) -> JSONValue {
    guard text.count <= (maxBytes * 4 + 2) / 3 else {
      throw TokenError.tooLarge.with("\(name) over \(maxBytes) bytes")
    }
    guard !text.isEmpty, let decoded = Base64URL.decode(text) else {
      throw TokenError.malformed.with("\(name) is not base64url")
    }
    let json: JSONValue
    do {
      json = try JSONParser.parse(decoded, maxDepth: limits.maxJSONDepth)
    } catch {
      switch error {
      case .tooDeep: throw TokenError.tooLarge.with("\(name) nested deeper than \(limits.maxJSONDepth)")
      case .malformed(let why): throw TokenError.malformed.with("\(name) is not JSON: \(why)")
      }
    }
    guard case .object = json else { throw TokenError.malformed.with("\(name) is not a JSON object") }
    return json
  }
}
