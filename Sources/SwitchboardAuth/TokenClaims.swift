/// The claims of a token (RFC 7519 §4) that Switchboard reads.
///
/// - `sub` — the user name: required, 1 to ``TokenLimits/maxSubjectLength`` characters, no
///   control characters. With auth on, the server names the connection after it.
/// - `rooms` — an array of room names and patterns (``RoomPattern``): the rooms the holder
///   may join, with every capability there; or an object mapping patterns to lists of
///   capabilities (``RoomGrant``, ``RoomCapabilities``): `{"news":["subscribe"]}`. Missing
///   means none: a token grants nothing it does not name (`["*"]` grants every room).
/// - `exp`, `nbf`, `iat` — NumericDates, seconds since 1970-01-01 UTC (fractions allowed:
///   `exp` rounds down, `nbf` and `iat` round up, the stricter way in each case).
/// - `iss`, `aud` — checked only when the verifier is configured with an issuer or audience
///   (and a token with an `aud` is refused by a verifier without one, RFC 7519 §4.1.3).
///
/// Every other claim is kept in ``all`` and otherwise ignored.
public struct TokenClaims: Sendable, Hashable {
  /// `sub`: the user name.
  public var subject: String
  /// `rooms`: the patterns and what each grants; empty when the claim is missing. The list
  /// form reads as grants of ``RoomCapabilities/all``.
  public var grants: [RoomGrant]
  /// The patterns of ``grants``; setting it grants each pattern all four capabilities.
  public var rooms: [RoomPattern] {
    get { grants.map(\.pattern) }
    set { grants = newValue.map { RoomGrant($0) } }
  }
  /// `exp`, seconds since 1970.
  public var expiresAt: Int64?
  /// `nbf`, seconds since 1970.
  public var notBefore: Int64?
  /// `iat`, seconds since 1970.
  public var issuedAt: Int64?
  /// `iss`, if present.
  public var issuer: String?
  /// `aud` as a list (a single string becomes one entry); empty when missing.
  public var audience: [String]
  /// Every claim of the payload as decoded, the ones above included.
  public var all: [String: JSONValue]

  /// Claims for minting. `extra` claims are added as they are; the named ones win.
  public init(
    subject: String, rooms: [RoomPattern] = [], expiresAt: Int64? = nil, notBefore: Int64? = nil,
    issuedAt: Int64? = nil, issuer: String? = nil, audience: [String] = [], extra: [String: JSONValue] = [:]
  ) {
    self.init(
      subject: subject, grants: rooms.map { RoomGrant($0) }, expiresAt: expiresAt, notBefore: notBefore,
      issuedAt: issuedAt, issuer: issuer, audience: audience, extra: extra)
  }

  /// Claims for minting with capabilities per room: `rooms` is written in the list form when
  /// every grant is all four (as tokens were before capabilities), else as an object.
  public init(
    subject: String, grants: [RoomGrant], expiresAt: Int64? = nil, notBefore: Int64? = nil,
    issuedAt: Int64? = nil, issuer: String? = nil, audience: [String] = [], extra: [String: JSONValue] = [:]
  ) {
    self.subject = subject
    self.grants = grants
    self.expiresAt = expiresAt
    self.notBefore = notBefore
    self.issuedAt = issuedAt
    self.issuer = issuer
    self.audience = audience
    self.all = extra
    all["sub"] = .string(subject)
    if !grants.isEmpty { all["rooms"] = RoomGrant.claim(grants) }
    if let expiresAt { all["exp"] = .number(Double(expiresAt)) }
    if let notBefore { all["nbf"] = .number(Double(notBefore)) }
    if let issuedAt { all["iat"] = .number(Double(issuedAt)) }
    if let issuer { all["iss"] = .string(issuer) }
    if audience.count == 1 {
      all["aud"] = .string(audience[0])
    } else if !audience.isEmpty {
      all["aud"] = .array(audience.map { .string($0) })
    }
  }

  /// Whether the token lets its holder join `room` (a grant there with ``RoomCapabilities/subscribe``).
  public func allows(room: String) -> Bool { capabilities(in: room).contains(.subscribe) }

  /// What the token lets its holder do in `room`: the union of the grants that match it.
  public func capabilities(in room: String) -> RoomCapabilities { RoomGrant.capabilities(grants, in: room) }

  /// Reads a parsed payload.
  init(_ json: JSONValue, limits: TokenLimits) throws(TokenError) {
    guard case .object(let members) = json else {
      throw TokenError.malformed.with("payload is not a JSON object")
    }
    all = members
    guard let raw = members["sub"] else { throw TokenError.missingSubject.with("no sub claim") }
    guard let subject = raw.stringValue, !subject.isEmpty else {
      throw TokenError.missingSubject.with("sub is not a non-empty string")
    }
    guard subject.count <= limits.maxSubjectLength else {
      throw TokenError.missingSubject.with("sub longer than \(limits.maxSubjectLength) characters")
    }
    guard !subject.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
      throw TokenError.missingSubject.with("sub has control characters")
    }
    self.subject = subject

    grants = try members["rooms"].map { v throws(TokenError) in try RoomGrant.decode(v, maxRooms: limits.maxRooms) } ?? []

    expiresAt = try Self.numericDate(members["exp"], "exp", roundingUp: false)
    notBefore = try Self.numericDate(members["nbf"], "nbf", roundingUp: true)
    issuedAt = try Self.numericDate(members["iat"], "iat", roundingUp: true)

    switch members["iss"] {
    case nil: issuer = nil
    case .string(let s)?: issuer = s
    default: throw TokenError.invalidClaim.with("iss is not a string")
    }
    switch members["aud"] {
    case nil: audience = []
    case .string(let s)?: audience = [s]
    case .array(let items)?:
      var names: [String] = []
      for item in items {
        guard let s = item.stringValue else {
          throw TokenError.invalidClaim.with("aud has an entry that is not a string")
        }
        names.append(s)
      }
      audience = names
    default: throw TokenError.invalidClaim.with("aud is not a string or an array")
    }
  }

  /// A NumericDate claim: a finite number within ±2^53 seconds.
  private static func numericDate(_ value: JSONValue?, _ name: String, roundingUp: Bool) throws(TokenError)
    -> Int64?
  {
    guard let value else { return nil }
    guard let n = value.numberValue, abs(n) <= 9_007_199_254_740_992 else {
      throw TokenError.invalidClaim.with("\(name) is not a number of seconds")
    }
    return Int64(roundingUp ? n.rounded(.up) : n.rounded(.down))
  }
}
