/// A JWS signature algorithm this module accepts (RFC 7518 §3). `none` is not one of them,
/// and never will be: an unsigned token is always refused.
///
/// Each key type allows exactly one algorithm (``TokenKey/algorithm``), so the header's
/// `alg` can only pick among keys of its own type: an HS256 token is never checked with an
/// RSA public key used as an HMAC secret (the classic algorithm-confusion attack), and an
/// RS256 or ES256 token never with a secret.
public enum TokenAlgorithm: String, Sendable, Hashable, CaseIterable {
  /// HMAC with SHA-256 and a shared secret.
  case hs256 = "HS256"
  /// RSASSA-PKCS1-v1_5 with SHA-256 (RSA keys of 2,048 bits or more).
  case rs256 = "RS256"
  /// ECDSA on P-256 with SHA-256; the signature is the raw 64 bytes `r || s`.
  case es256 = "ES256"
}
