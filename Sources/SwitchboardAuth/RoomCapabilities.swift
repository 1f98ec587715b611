/// What a token's holder may do in a room (docs/SECURITY.md, "Capabilities"): a set of the
/// four capabilities a `rooms` object grants a pattern.
///
/// - ``subscribe``: join the room and receive its messages. A grant without it lets the
///   holder do nothing there (joining is refused).
/// - ``publish``: send messages (and actions, binary data) to the room.
/// - ``presence``: see who is there: the answer to `/who` and the presence lines and frames
///   (joined, left, renamed).
/// - ``history``: the room's kept messages: the replay on join or resume and the answer to
///   a history request (`/history`, `/since`, the JSON `history` frame).
///
/// The list form of `rooms` (`["news","team-*"]`) grants ``all`` in every room it names.
public struct RoomCapabilities: OptionSet, Sendable, Hashable, CustomStringConvertible {
  /// The set's bits (see ``init(rawValue:)``).
  public let rawValue: UInt8

  /// Makes a set from its bits (``subscribe`` 1, ``publish`` 2, ``presence`` 4, ``history`` 8).
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// May join and receive.
  public static let subscribe = RoomCapabilities(rawValue: 1)
  /// May send.
  public static let publish = RoomCapabilities(rawValue: 2)
  /// May see who is there.
  public static let presence = RoomCapabilities(rawValue: 4)
  /// May read the kept messages.
  public static let history = RoomCapabilities(rawValue: 8)
  /// All four: what the list form of `rooms`, and a server without tokens, grant.
  public static let all: RoomCapabilities = [.subscribe, .publish, .presence, .history]

  /// The capabilities in the order they are written, with their names in a token.
  public static let named: [(name: String, capability: RoomCapabilities)] = [
    ("subscribe", .subscribe), ("publish", .publish), ("presence", .presence), ("history", .history),
  ]

  /// The capability a token names `name`; `nil` for any other text (names are lower case).
  public init?(name: String) {
    guard let entry = Self.named.first(where: { $0.name == name }) else { return nil }
    self = entry.capability
  }

  /// The names of the capabilities in the set, in the order of ``named``.
  public var names: [String] { Self.named.filter { contains($0.capability) }.map(\.name) }

  /// The names joined by `+` (`subscribe+publish`), `none` for the empty set: the spelling of
  /// `switchboard token --rooms`.
  public var description: String { isEmpty ? "none" : names.joined(separator: "+") }
}

/// One entry of a token's `rooms` claim: a pattern and what it grants there.
public struct RoomGrant: Sendable, Hashable, CustomStringConvertible {
  /// The rooms the grant covers.
  public var pattern: RoomPattern
  /// What the holder may do in them.
  public var capabilities: RoomCapabilities

  /// A grant of `capabilities` (by default all four) in the rooms `pattern` matches.
  public init(_ pattern: RoomPattern, _ capabilities: RoomCapabilities = .all) {
    self.pattern = pattern
    self.capabilities = capabilities
  }

  /// Reads the `switchboard token --rooms` spelling of one grant: `PATTERN` (all four) or
  /// `PATTERN=CAP+CAP…` (`news=subscribe`, `team-*=subscribe+publish`); `nil` when the pattern
  /// or a capability name is not valid, or none is named after `=`.
  public init?(parsing text: some StringProtocol) {
    let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
    guard let pattern = RoomPattern(String(parts[0])) else { return nil }
    var capabilities = RoomCapabilities.all
    if parts.count == 2 {
      capabilities = []
      let names = parts[1].split(separator: "+", omittingEmptySubsequences: false)
      for name in names {
        guard let capability = RoomCapabilities(name: String(name)) else { return nil }
        capabilities.insert(capability)
      }
    }
    self.init(pattern, capabilities)
  }

  /// `PATTERN`, or `PATTERN=CAP+CAP` when the grant is not all four: what ``init(parsing:)`` reads.
  public var description: String {
    capabilities == .all ? pattern.text : "\(pattern.text)=\(capabilities)"
  }

  /// What `grants` allow in `room`: the union of every grant whose pattern matches it (an
  /// object has no order to pick a first match by); empty when none does.
  public static func capabilities(_ grants: [RoomGrant], in room: String) -> RoomCapabilities {
    var result: RoomCapabilities = []
    for grant in grants where !grant.capabilities.isSubset(of: result) && grant.pattern.matches(room) {
      result.formUnion(grant.capabilities)
    }
    return result
  }

  /// The `rooms` claim for `grants`: the list form when every grant is all four (what a
  /// token minted before capabilities existed holds, and what older servers read), else the
  /// object form, `{"PATTERN":["CAP",…]}`.
  public static func claim(_ grants: [RoomGrant]) -> JSONValue {
    if grants.allSatisfy({ $0.capabilities == .all }) {
      return .array(grants.map { .string($0.pattern.text) })
    }
    var members: [String: JSONValue] = [:]
    for grant in grants {
      let previous = members[grant.pattern.text].flatMap { value -> RoomCapabilities? in
        guard case .array(let items) = value else { return nil }
        return items.reduce(into: RoomCapabilities()) { set, item in
          if let name = item.stringValue, let c = RoomCapabilities(name: name) { set.insert(c) }
        }
      } ?? []
      members[grant.pattern.text] = .array(previous.union(grant.capabilities).names.map { .string($0) })
    }
    return .object(members)
  }

  /// Reads a `rooms` claim: an array of patterns (each granted ``RoomCapabilities/all``) or
  /// an object mapping patterns to arrays of capability names. At most `maxRooms` entries
  /// (``TokenError/tooLarge``); a bad pattern, an unknown capability, an entry of the wrong
  /// type or more than eight names in one list is ``TokenError/invalidClaim``.
  static func decode(_ value: JSONValue, maxRooms: Int) throws(TokenError) -> [RoomGrant] {
    switch value {
    case .array(let items):
      guard items.count <= maxRooms else { throw TokenError.tooLarge.with("more than \(maxRooms) rooms") }
      var grants: [RoomGrant] = []
      for item in items {
        guard let text = item.stringValue, let pattern = RoomPattern(text) else {
          throw TokenError.invalidClaim.with("rooms has an entry that is not a room name or pattern")
        }
        grants.append(RoomGrant(pattern))
      }
      return grants
    case .object(let members):
      guard members.count <= maxRooms else { throw TokenError.tooLarge.with("more than \(maxRooms) rooms") }
      var grants: [RoomGrant] = []
      // Sorted so that equal claims decode to equal values.
      for key in members.keys.sorted() {
        guard let pattern = RoomPattern(key) else {
          throw TokenError.invalidClaim.with("rooms has a key that is not a room name or pattern")
        }
        guard case .array(let names)? = members[key] else {
          throw TokenError.invalidClaim.with("rooms maps \(pattern.text) to something other than an array")
        }
        // Four names, each at most twice over: a longer list is not a list a tool wrote.
        guard names.count <= 2 * RoomCapabilities.named.count else {
          throw TokenError.invalidClaim.with("rooms lists more than 8 capabilities for \(pattern.text)")
        }
        var capabilities: RoomCapabilities = []
        for name in names {
          guard let text = name.stringValue, let capability = RoomCapabilities(name: text) else {
            throw TokenError.invalidClaim.with(
              "rooms grants \(pattern.text) something other than subscribe, publish, presence or history")
          }
          capabilities.insert(capability)
        }
        grants.append(RoomGrant(pattern, capabilities))
      }
      return grants
    default:
      throw TokenError.invalidClaim.with("rooms is not an array or an object")
    }
  }
}
