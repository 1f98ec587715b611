/// One member's entry in a room's presence sorted set (docs/SCALING.md, "The Redis broker"),
/// and its decoder: a pure value type (the entries come from Redis, which any client can write).
///
/// The entry is `<node>|<member>|<name>`: the node's id, the member, and its name as raw
/// UTF-8 (the rest, so it may hold `|`). The member is `<id>:<transport>:<since>` — the
/// member's number on its node, how it is connected (`tcp`, `ws` …) and when it entered
/// the room (ms since the Unix epoch) — or the bare `<id>` written by a node of an earlier
/// version (and by one that does not know the member's transport): such an entry reads
/// with no transport and no time. Everything before the second `|` stays where the
/// earlier form had it, so the expiry script (``RedisBrokerScripts/expire``) and nodes of
/// either version read the node and the name alike.
public struct RedisPresenceEntry: Sendable, Hashable {
  /// The node the member is on.
  public var node: String
  /// The member's number on its node (``SwitchboardChat/MemberID/raw`` as text).
  public var member: String
  /// How the member is connected (`tcp`, `tls`, `udp`, `ws`, `wss`); `nil` for an entry in
  /// the earlier form.
  public var transport: String?
  /// When the member entered the room, in ms since the Unix epoch; `nil` with ``transport``.
  public var since: Int64?
  /// The member's name in the room.
  public var name: String

  /// Longest transport accepted.
  static let maxTransportBytes = 8

  public init(node: String, member: String, transport: String? = nil, since: Int64? = nil, name: String) {
    self.node = node
    self.member = member
    self.transport = transport
    self.since = since
    self.name = name
  }

  /// The sorted set's member: the new form when both transport and time are known, else
  /// the earlier one.
  public var encoded: String {
    guard let transport, let since else { return "\(node)|\(member)|\(name)" }
    return "\(node)|\(member):\(transport):\(since)|\(name)"
  }

  /// Decodes an entry, or `nil` for bytes that are no entry (no two `|`, an empty node or
  /// name, a field over `limits`). A member field that is not `<id>:<transport>:<since>` is
  /// kept whole with no transport and time, as an entry of the earlier form.
  public static func decode(
    _ bytes: some Collection<UInt8>, limits: RedisBrokerPayload.Limits = RedisBrokerPayload.Limits()
  ) -> RedisPresenceEntry? {
    let bar = UInt8(ascii: "|")
    guard let first = bytes.firstIndex(of: bar) else { return nil }
    let afterFirst = bytes.index(after: first)
    guard let second = bytes[afterFirst...].firstIndex(of: bar) else { return nil }
    let node = bytes[..<first]
    let member = bytes[afterFirst..<second]
    let name = bytes[bytes.index(after: second)...]
    guard !node.isEmpty, node.count <= limits.maxTokenBytes, !member.isEmpty, member.count <= limits.maxTokenBytes,
      !name.isEmpty, name.count <= limits.maxNameBytes
    else { return nil }
    var entry = RedisPresenceEntry(
      node: String(decoding: node, as: UTF8.self), member: String(decoding: member, as: UTF8.self),
      name: String(decoding: name, as: UTF8.self))
    let parts = member.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
    if parts.count == 3, isDigits(parts[0]), isTransport(parts[1]), isDigits(parts[2]), parts[2].count <= 18,
      let since = Int64(String(decoding: parts[2], as: UTF8.self))
    {
      entry.member = String(decoding: parts[0], as: UTF8.self)
      entry.transport = String(decoding: parts[1], as: UTF8.self)
      entry.since = since
    }
    return entry
  }

  private static func isDigits(_ field: some Collection<UInt8>) -> Bool {
    !field.isEmpty && field.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
  }

  private static func isTransport(_ field: some Collection<UInt8>) -> Bool {
    !field.isEmpty && field.count <= maxTransportBytes
      && field.allSatisfy {
        ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z"))
          || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
      }
  }
}
