/// Limits applied while decoding a token; every one is on by default.
///
/// What happens when one is exceeded (decoding throws, nothing is checked further):
/// - a token longer than ``maxTokenLength`` → ``TokenError/tooLarge``, before any byte is decoded;
/// - a decoded header over ``maxHeaderBytes`` or payload over ``maxPayloadBytes`` →
///   ``TokenError/tooLarge``, before it is parsed;
/// - JSON nested deeper than ``maxJSONDepth`` → ``TokenError/tooLarge``;
/// - more than ``maxRooms`` entries in `rooms` → ``TokenError/tooLarge``;
/// - a `sub` longer than ``maxSubjectLength`` characters → ``TokenError/missingSubject``.
///
/// The defaults leave room for tokens other issuers mint (a few dozen custom claims, an
/// RSA-4096 signature) while keeping the work per token small and bounded.
public struct TokenLimits: Sendable, Hashable {
  /// Default for ``maxTokenLength``: 8,192 bytes (what most HTTP servers accept in one header).
  public static let defaultMaxTokenLength = 8_192
  /// Default for ``maxHeaderBytes``: 1,024 bytes of header JSON.
  public static let defaultMaxHeaderBytes = 1_024
  /// Default for ``maxPayloadBytes``: 4,096 bytes of claims JSON.
  public static let defaultMaxPayloadBytes = 4_096
  /// Default for ``maxJSONDepth``: 16 nested arrays or objects.
  public static let defaultMaxJSONDepth = 16
  /// Default for ``maxRooms``: 64 room names or patterns.
  public static let defaultMaxRooms = 64
  /// Default for ``maxSubjectLength``: 64 characters, the hub's longest name.
  public static let defaultMaxSubjectLength = 64

  /// Longest token accepted, in bytes of its compact form (segments and dots).
  public var maxTokenLength: Int
  /// Largest decoded header accepted, in bytes of JSON.
  public var maxHeaderBytes: Int
  /// Largest decoded payload accepted, in bytes of JSON.
  public var maxPayloadBytes: Int
  /// Deepest nesting of arrays and objects accepted in the header or payload.
  public var maxJSONDepth: Int
  /// Most entries accepted in the `rooms` claim.
  public var maxRooms: Int
  /// Longest `sub` accepted, in characters.
  public var maxSubjectLength: Int

  /// Creates limits; every parameter defaults to the named default.
  public init(
    maxTokenLength: Int = TokenLimits.defaultMaxTokenLength,
    maxHeaderBytes: Int = TokenLimits.defaultMaxHeaderBytes,
    maxPayloadBytes: Int = TokenLimits.defaultMaxPayloadBytes,
    maxJSONDepth: Int = TokenLimits.defaultMaxJSONDepth,
    maxRooms: Int = TokenLimits.defaultMaxRooms,
    maxSubjectLength: Int = TokenLimits.defaultMaxSubjectLength
  ) {
    self.maxTokenLength = maxTokenLength
    self.maxHeaderBytes = maxHeaderBytes
    self.maxPayloadBytes = maxPayloadBytes
    self.maxJSONDepth = maxJSONDepth
    self.maxRooms = maxRooms
    self.maxSubjectLength = maxSubjectLength
  }

  /// The defaults: 8 KiB tokens, 1 KiB header, 4 KiB payload, depth 16, 64 rooms, 64-character names.
  public static let `default` = TokenLimits()
}
