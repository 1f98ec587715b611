/// What an auth proxy (`serve --auth-proxy URL`, docs/API.md, "Auth proxy") answered about
/// one connection: admit it (maybe under another name, maybe only into some rooms) or refuse
/// it with a reason the member is shown.
///
/// Decoded from the backend's response body by ``decode(_:)``: a pure function of untrusted
/// bytes with limits (``maxBytes``, the token's name and room limits, ``maxReasonBytes``);
/// anything it does not accept is an ``AuthProxyAnswerError`` and the server refuses the
/// connection (fail closed). Fuzzed by `fuzz-auth-proxy`.
public enum AuthProxyAnswer: Sendable, Hashable {
  /// `{"allow":true,"name"?,"rooms"?}`: admitted. `name`, when given, replaces the name the
  /// connection asked for; `rooms`, when given, are the only rooms it may be in (patterns as
  /// a token's `rooms`: `team-*`, `*`).
  case allow(name: String?, rooms: [RoomPattern]?)
  /// `{"allow":false,"reason"?}`: refused; `reason` is shown to the member (a default when
  /// the backend gave none).
  case deny(reason: String)

  /// The largest body read (bytes); a longer one is malformed.
  public static let maxBytes = 16_384
  /// The longest `reason` kept (UTF-8 bytes): it must fit a WebSocket close reason (123).
  public static let maxReasonBytes = 120
  /// The reason given when a refusal names none.
  public static let defaultReason = "refused by the auth proxy"

  /// Decodes a response body.
  /// - Throws: ``AuthProxyAnswerError`` for a body over ``maxBytes``, text that is not a
  ///   JSON object, `allow` missing or not a boolean, a `name` that is not a 1-64 character
  ///   string without control characters, `rooms` that are not an array of at most 64 valid
  ///   patterns, or a `reason` that is not a string.
  public static func decode(_ bytes: [UInt8]) throws(AuthProxyAnswerError) -> AuthProxyAnswer {
    guard bytes.count <= maxBytes else { throw .tooLarge }
    let value: JSONValue
    do {
      value = try JSONParser.parse(bytes, maxDepth: 4)
    } catch {
      throw .malformed("not JSON")
    }
    guard case .object(let members) = value else { throw .malformed("not a JSON object") }
    guard case .bool(let allow)? = members["allow"] else { throw .malformed("allow must be true or false") }
    guard allow else {
      switch members["reason"] {
      case nil, .null?:
        return .deny(reason: defaultReason)
      case .string(let reason)?:
        return .deny(reason: clean(reason))
      default:
        throw .malformed("reason must be a string")
      }
    }
    var name: String? = nil
    switch members["name"] {
    case nil, .null?: break
    case .string(let given)?:
      guard (1...TokenLimits.defaultMaxSubjectLength).contains(given.count),
        !given.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
      else { throw .malformed("name must be 1-64 characters without control characters") }
      name = given
    default:
      throw .malformed("name must be a string")
    }
    var rooms: [RoomPattern]? = nil
    switch members["rooms"] {
    case nil, .null?: break
    case .array(let items)?:
      guard items.count <= TokenLimits.defaultMaxRooms else { throw .malformed("more than 64 rooms") }
      rooms = try items.map { (item) throws(AuthProxyAnswerError) -> RoomPattern in
        guard case .string(let text) = item, let pattern = RoomPattern(text) else {
          throw .malformed("rooms must be room names or patterns")
        }
        return pattern
      }
    default:
      throw .malformed("rooms must be an array")
    }
    return .allow(name: name, rooms: rooms)
  }

  /// A reason as it can be shown on one line and in a close frame: control characters become
  /// spaces, cut to ``maxReasonBytes`` on a character boundary; empty becomes the default.
  static func clean(_ reason: String) -> String {
    var out = ""
    var bytes = 0
    for character in reason {
      let c: Character =
        character.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        ? " " : character
      let size = String(c).utf8.count
      guard bytes + size <= maxReasonBytes else { break }
      out.append(c)
      bytes += size
    }
    let trimmed = out.drop(while: { $0 == " " })
    return trimmed.isEmpty ? defaultReason : String(trimmed)
  }

  /// Whether the answer lets the connection be in `room` (a refusal never does).
  public func allows(room: String) -> Bool {
    switch self {
    case .allow(_, let rooms?): RoomPattern.any(rooms, match: room)
    case .allow(_, nil): true
    case .deny: false
    }
  }
}

/// Why an auth proxy's response body was not an ``AuthProxyAnswer`` (the connection is then
/// refused: fail closed).
public enum AuthProxyAnswerError: Error, Sendable, Hashable, CustomStringConvertible {
  /// Longer than ``AuthProxyAnswer/maxBytes``.
  case tooLarge
  /// Not the documented JSON object; the detail says what was wrong.
  case malformed(String)

  public var description: String {
    switch self {
    case .tooLarge: "answer longer than \(AuthProxyAnswer.maxBytes) bytes"
    case .malformed(let what): "malformed answer: \(what)"
    }
  }
}
