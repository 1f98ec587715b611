/// Mints compact tokens: `switchboard token`, and tests.
public enum TokenSigner {
  /// A signed compact token for `claims` with `key` (a secret or a private key); the header
  /// carries the key's algorithm, `typ: JWT` and the key's id as `kid` when it has one.
  /// - Throws: ``TokenError/cannotSign`` for a public key.
  public static func sign(_ claims: TokenClaims, with key: TokenKey) throws(TokenError) -> String {
    guard key.canSign else { throw TokenError.cannotSign.with("signing needs a secret or a private key") }
    let header = TokenHeader(algorithm: key.algorithm, keyID: key.id)
    let payload = JSONValue.object(claims.all).encoded()
    let input =
      Base64URL.encode(Array(header.json.encoded().utf8)) + "." + Base64URL.encode(Array(payload.utf8))
    let signature = try key.sign(Array(input.utf8))
    return input + "." + Base64URL.encode(signature)
  }
}
