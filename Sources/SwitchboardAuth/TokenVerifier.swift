#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Checks tokens: structure and limits (``UnverifiedToken``), the signature with the
/// configured keys, then the claims against the time and the configured issuer/audience.
///
/// Order of the checks, so a token gets the first answer that applies: size and shape
/// (``TokenError/tooLarge``, ``TokenError/malformed``), `alg` (``TokenError/unsupportedAlgorithm``),
/// key choice (``TokenError/unknownKey``), signature (``TokenError/badSignature``), claims
/// (``TokenError/missingSubject``, ``TokenError/invalidClaim``), `exp`
/// (``TokenError/expired``, ``TokenError/missingExpiration``), `nbf`/`iat`
/// (``TokenError/notYetValid``), `iss`, `aud`.
///
/// Which keys check a token: only keys whose ``TokenKey/algorithm`` is the header's `alg`
/// (none → ``TokenError/unsupportedAlgorithm``). With a `kid`, the keys of that id; when no
/// key has that id, the keys without an id (none → ``TokenError/unknownKey``). Without a
/// `kid`, every key of the algorithm. One that verifies is enough.
///
/// Time: a token is expired once `now - leeway >= exp`, not yet valid while
/// `nbf > now + leeway` or `iat > now + leeway`. The leeway absorbs clock differences
/// between the issuer and the server; its default is ``defaultLeeway``.
public struct TokenVerifier: Sendable {
  /// Default for ``leeway``: 60 seconds.
  public static let defaultLeeway: Int64 = 60

  /// The keys that may have signed a token.
  public var keys: [TokenKey]
  /// Size limits for decoding.
  public var limits: TokenLimits
  /// Allowed clock difference, in seconds.
  public var leeway: Int64
  /// Whether a token without `exp` is refused (``TokenError/missingExpiration``). On by
  /// default: a token without one would be good forever.
  public var requiresExpiration: Bool
  /// When set, `iss` must be exactly this.
  public var issuer: String?
  /// When set, `aud` must name it; when `nil`, a token with an `aud` is refused (RFC 7519
  /// §4.1.3: a token meant for somebody else).
  public var audience: String?

  /// Creates a verifier; every parameter but the keys has a safe default.
  public init(
    keys: [TokenKey], limits: TokenLimits = .default, leeway: Int64 = TokenVerifier.defaultLeeway,
    requiresExpiration: Bool = true, issuer: String? = nil, audience: String? = nil
  ) {
    self.keys = keys
    self.limits = limits
    // Bounded (0 s to about 136 years), so that no time arithmetic can overflow.
    self.leeway = max(0, min(leeway, 1 << 32))
    self.requiresExpiration = requiresExpiration
    self.issuer = issuer
    self.audience = audience
  }

  /// Verifies `token` at `now` (seconds since 1970).
  public func verify(_ token: some Collection<UInt8>, now: Int64) throws(TokenError) -> VerifiedToken {
    let parsed = try UnverifiedToken(parsing: token, limits: limits)
    let header = parsed.header
    let ofAlgorithm = keys.filter { $0.algorithm == header.algorithm }
    guard !ofAlgorithm.isEmpty else {
      throw TokenError.unsupportedAlgorithm.with("no configured key checks \(header.algorithm.rawValue)")
    }
    var candidates = ofAlgorithm
    if let kid = header.keyID {
      let named = ofAlgorithm.filter { $0.id == kid }
      candidates = named.isEmpty ? ofAlgorithm.filter { $0.id == nil } : named
      guard !candidates.isEmpty else { throw TokenError.unknownKey.with("no key has this kid") }
    }
    guard candidates.contains(where: { $0.verify(signature: parsed.signature, over: parsed.signingInput) })
    else {
      throw TokenError.badSignature.with("\(header.algorithm.rawValue) signature does not verify")
    }

    let claims = try TokenClaims(parsed.payload, limits: limits)
    if let exp = claims.expiresAt {
      guard now - leeway < exp else { throw TokenError.expired.with("expired \(now - exp) s ago") }
    } else if requiresExpiration {
      throw TokenError.missingExpiration.with("no exp claim")
    }
    if let nbf = claims.notBefore, nbf > now + leeway {
      throw TokenError.notYetValid.with("valid in \(nbf - now) s")
    }
    if let iat = claims.issuedAt, iat > now + leeway {
      throw TokenError.notYetValid.with("issued \(iat - now) s in the future")
    }
    if let issuer, claims.issuer != issuer {
      throw TokenError.wrongIssuer.with("iss is not the configured issuer")
    }
    if let audience {
      guard claims.audience.contains(audience) else {
        throw TokenError.wrongAudience.with("aud does not name us")
      }
    } else if claims.all["aud"] != nil {
      throw TokenError.wrongAudience.with("token has an aud and no audience is configured")
    }
    return VerifiedToken(header: header, claims: claims)
  }

  /// Verifies `token` at `now` (seconds since 1970).
  public func verify(_ token: String, now: Int64) throws(TokenError) -> VerifiedToken {
    try verify(token.utf8, now: now)
  }

  /// Verifies `token` now, by the system's wall clock.
  public func verify(_ token: String) throws(TokenError) -> VerifiedToken {
    try verify(token.utf8, now: Self.wallClockSeconds())
  }

  /// Seconds since 1970 by the system's wall clock (what `exp` and `nbf` are measured in).
  public static func wallClockSeconds() -> Int64 { Int64(time(nil)) }
}
