/// A token whose signature checked out and whose claims are valid now.
public struct VerifiedToken: Sendable, Hashable {
  /// The header (its `kid` says which key signed, if the issuer named one).
  public let header: TokenHeader
  /// The claims: `sub` is the user name, `rooms` what they may join.
  public let claims: TokenClaims
}
