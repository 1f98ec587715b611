/// The JOSE header of a signed token (RFC 7515 §4), as far as verification needs it.
///
/// Read: `alg` (required, one of ``TokenAlgorithm``), `kid` (optional, picks the key), `typ`
/// (optional, any string). Refused: `crit` (no extension is understood, so RFC 7515 §4.1.11
/// requires refusal) and `enc` (an encrypted token). Ignored on purpose: `jwk`, `jku`, `x5u`,
/// `x5c` — a key that travels with the token proves nothing; keys come only from the
/// verifier's configuration.
public struct TokenHeader: Sendable, Hashable {
  /// The signature algorithm.
  public var algorithm: TokenAlgorithm
  /// The key id, if the issuer named one.
  public var keyID: String?
  /// The media type (`JWT` usually), if given.
  public var type: String?

  /// A header for minting.
  public init(algorithm: TokenAlgorithm, keyID: String? = nil, type: String? = "JWT") {
    self.algorithm = algorithm
    self.keyID = keyID
    self.type = type
  }

  /// Reads a parsed header object.
  /// - Throws: ``TokenError/malformed`` for a non-object, `crit`, `enc` or mistyped members;
  ///   ``TokenError/unsupportedAlgorithm`` for a missing, `none` or unknown `alg`.
  init(_ json: JSONValue) throws(TokenError) {
    guard case .object(let members) = json else {
      throw TokenError.malformed.with("header is not a JSON object")
    }
    guard members["crit"] == nil else {
      throw TokenError.malformed.with("header has crit (no extension is supported)")
    }
    guard members["enc"] == nil else {
      throw TokenError.malformed.with("encrypted tokens (JWE) are not supported")
    }
    guard let raw = members["alg"] else { throw TokenError.unsupportedAlgorithm.with("header has no alg") }
    guard let name = raw.stringValue else {
      throw TokenError.unsupportedAlgorithm.with("alg is not a string")
    }
    guard let algorithm = TokenAlgorithm(rawValue: name) else {
      let shown = name.lowercased() == "none" ? "none" : String(name.prefix(16))
      throw TokenError.unsupportedAlgorithm.with("alg \(shown) is not accepted")
    }
    self.algorithm = algorithm
    switch members["kid"] {
    case nil: keyID = nil
    case .string(let kid)?: keyID = kid
    default: throw TokenError.malformed.with("kid is not a string")
    }
    switch members["typ"] {
    case nil: type = nil
    case .string(let typ)?: type = typ
    default: throw TokenError.malformed.with("typ is not a string")
    }
  }

  /// The header as JSON (for minting).
  var json: JSONValue {
    var members: [String: JSONValue] = ["alg": .string(algorithm.rawValue)]
    if let keyID { members["kid"] = .string(keyID) }
    if let type { members["typ"] = .string(type) }
    return .object(members)
  }
}
