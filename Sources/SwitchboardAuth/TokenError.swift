/// Why a token was refused, or why a key or a token could not be made.
///
/// Open-enum style: compare with the static members (`error == .expired` compares the kind
/// only, ignoring ``detail``) so kinds can be added later without breaking users. Every kind
/// has an ``answer``: the short text the server sends back — after `! ` on the line dialects,
/// as the reason of a WebSocket close 1008 (policy violation), as the message of a JSON
/// `error` frame. Answers never echo token bytes and stay under the 123 bytes a close reason
/// may carry. ``detail`` says more (which segment, which claim, which limit) for logs and for
/// `switchboard token --verify`; it is not meant for the client.
public struct TokenError: Error, Sendable, Hashable, CustomStringConvertible {
  private enum Code: Sendable, Hashable {
    case malformed
    case tooLarge
    case unsupportedAlgorithm
    case unknownKey
    case badSignature
    case expired
    case notYetValid
    case missingSubject
    case missingExpiration
    case invalidClaim
    case wrongAudience
    case wrongIssuer
    case invalidKey
    case cannotSign
    case unavailable
  }

  private let code: Code
  /// More about this occurrence: the segment, claim or limit involved. Never the token itself.
  public let detail: String

  private init(_ code: Code, _ detail: String) {
    self.code = code
    self.detail = detail
  }

  /// The text the server answers with (`token expired`, `token signature invalid`, …).
  public var answer: String {
    switch code {
    case .malformed: "token malformed"
    case .tooLarge: "token too large"
    case .unsupportedAlgorithm: "token algorithm not accepted"
    case .unknownKey: "token key unknown"
    case .badSignature: "token signature invalid"
    case .expired: "token expired"
    case .notYetValid: "token not yet valid"
    case .missingSubject: "token has no subject"
    case .missingExpiration: "token has no expiry"
    case .invalidClaim: "token claim invalid"
    case .wrongAudience: "token audience mismatch"
    case .wrongIssuer: "token issuer mismatch"
    case .invalidKey: "token key unusable"
    case .cannotSign: "token cannot be signed"
    case .unavailable: "token signatures unavailable"
    }
  }

  /// `TokenError: <answer> (<detail>)`.
  public var description: String {
    detail.isEmpty ? "TokenError: \(answer)" : "TokenError: \(answer) (\(detail))"
  }

  /// Not a JWS in compact form: not three segments, a segment that is not strict base64url,
  /// a header or payload that is not a JSON object (or not UTF-8, or has duplicate members),
  /// an encrypted token (five segments), a `crit` header.
  public static let malformed = TokenError(.malformed, "")
  /// Longer than ``TokenLimits/maxTokenLength``, a header or payload over its limit, JSON
  /// nested deeper than ``TokenLimits/maxJSONDepth`` or more `rooms` than allowed.
  public static let tooLarge = TokenError(.tooLarge, "")
  /// The header's `alg` is missing, `none` (in any spelling), not one of HS256, RS256, ES256,
  /// or not the algorithm of any configured key (an HS256 token is never checked against a
  /// public key, nor an RS256 token against a secret).
  public static let unsupportedAlgorithm = TokenError(.unsupportedAlgorithm, "")
  /// The header names a `kid` that no configured key has.
  public static let unknownKey = TokenError(.unknownKey, "")
  /// The signature does not verify with any key that may check it, or has the wrong length.
  public static let badSignature = TokenError(.badSignature, "")
  /// `exp` is in the past, beyond the leeway.
  public static let expired = TokenError(.expired, "")
  /// `nbf` (or `iat`) is in the future, beyond the leeway.
  public static let notYetValid = TokenError(.notYetValid, "")
  /// No `sub`, or one that is not a usable name (empty, too long, control characters).
  public static let missingSubject = TokenError(.missingSubject, "")
  /// No `exp`, and the verifier requires one (the default).
  public static let missingExpiration = TokenError(.missingExpiration, "")
  /// A registered claim of the wrong type: `exp`/`nbf`/`iat` not a number, `rooms` not an
  /// array of valid room patterns, `aud` not a string or an array of strings.
  public static let invalidClaim = TokenError(.invalidClaim, "")
  /// `aud` does not name the verifier's audience, or is missing while one is required (or
  /// present while the verifier has none).
  public static let wrongAudience = TokenError(.wrongAudience, "")
  /// `iss` is not the issuer the verifier requires.
  public static let wrongIssuer = TokenError(.wrongIssuer, "")
  /// A key that cannot be used: a secret shorter than ``TokenKey/minimumSecretLength``, a PEM
  /// that does not parse, an RSA key under 2,048 bits, an EC key not on P-256, another key type.
  public static let invalidKey = TokenError(.invalidKey, "")
  /// Signing needs a secret or a private key, or the claims cannot be encoded.
  public static let cannotSign = TokenError(.cannotSign, "")
  /// This build has no crypto library for tokens (``TokenSupport/isAvailable`` is `false`):
  /// every ``TokenKey`` is refused, and ``detail`` names the platform.
  public static let unavailable = TokenError(.unavailable, "")

  /// The same kind with a more specific detail.
  public func with(_ detail: String) -> TokenError { TokenError(code, detail) }

  /// Errors are equal when they are the same kind, whatever their details.
  public static func == (lhs: TokenError, rhs: TokenError) -> Bool { lhs.code == rhs.code }

  /// Hashes the kind only, consistent with `==`.
  public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
