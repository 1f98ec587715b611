import SwitchboardWire

/// The bytes the Redis broker keeps and announces for one message, and their decoder: a
/// pure value type with limits (the bytes come from Redis, which any client can write).
///
/// Version 1, all numbers in decimal ASCII, fields separated by one space:
///
/// - **body** (the stream entry's field `m`, written by the node):
///   `<time> <flags> <authorBytes> <colorBytes> <author><color><text>` — `time` in ms
///   since the Unix epoch (may be negative), `flags` bit 0 = `/me` action, then the author,
///   colour and text as raw UTF-8 (the text is the rest, so it may hold spaces and newlines);
/// - **payload** (published on the room's channel, built by the publish script):
///   `sb1 <id> <epoch> <ref> <body>` — the id the script assigned, the room's epoch, and the
///   publishing node's ref (so that node recognises its own message);
/// - **presence** (published on the room's channel by the presence script):
///   `sb1p <members> <kind> <node> <authorBytes> <colorBytes> <fromBytes> <author><color><from>`
///   — the room's live members on every node after the change, `join`, `leave` or
///   `rename`, the node it happened on, then the member's name, colour and (for a rename)
///   previous name as raw UTF-8, nothing after them. Not kept in the stream.
///
/// A message's id and room are not in the body: the id is the stream entry id (`<id>-0`),
/// the room is the key's.
public struct RedisBrokerPayload: Sendable, Hashable {
  /// What the decoder accepts.
  public struct Limits: Sendable, Hashable {
    /// Longest body in bytes.
    public var maxBodyBytes: Int
    /// Longest author or colour in bytes.
    public var maxNameBytes: Int
    /// Longest epoch or ref in bytes.
    public var maxTokenBytes: Int

    public init(maxBodyBytes: Int = 1 << 20, maxNameBytes: Int = 1024, maxTokenBytes: Int = 128) {
      self.maxBodyBytes = maxBodyBytes
      self.maxNameBytes = maxNameBytes
      self.maxTokenBytes = maxTokenBytes
    }
  }

  /// Why bytes were refused.
  public struct DecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
  }

  /// The message (its `room` as given to the decoder).
  public var message: ChatMessage
  /// The room's epoch (empty for a bare body).
  public var epoch: String
  /// The publishing node's ref (`-` when none).
  public var ref: String

  public init(message: ChatMessage, epoch: String, ref: String) {
    self.message = message
    self.epoch = epoch
    self.ref = ref
  }

  /// The version tag at the start of every message payload.
  public static let version = "sb1"
  /// The version tag at the start of every presence announcement.
  public static let presenceVersion = "sb1p"
  /// Most members an announcement may count.
  static let maxMembers: UInt64 = 1 << 32

  /// The body of `message` (id and room left out).
  public static func body(_ message: ChatMessage) -> [UInt8] {
    var out = Array("\(message.time) \(message.isAction ? 1 : 0) ".utf8)
    out += Array("\(message.author.utf8.count) \(message.color.utf8.count) ".utf8)
    out += Array(message.author.utf8)
    out += Array(message.color.utf8)
    message.withTextUTF8 { out.append(contentsOf: $0) }
    return out
  }

  /// The whole payload, as the publish script builds it (for tests and tools).
  public static func payload(id: UInt64, epoch: String, ref: String, body: [UInt8]) -> [UInt8] {
    Array("\(version) \(id) \(epoch) \(ref) ".utf8) + body
  }

  /// Decodes a channel payload of `room`.
  public static func decodePayload(
    _ bytes: [UInt8], room: String, limits: Limits = Limits()
  ) throws(DecodingError) -> RedisBrokerPayload {
    var cursor = Cursor(bytes: bytes[...])
    guard try cursor.token(limit: 8) == version else { throw DecodingError("not a \(version) payload") }
    let id = try cursor.number(limit: 20)
    guard id > 0 else { throw DecodingError("id 0") }
    let epoch = try cursor.token(limit: limits.maxTokenBytes)
    let ref = try cursor.token(limit: limits.maxTokenBytes)
    var message = try decodeBody(cursor.rest, room: room, limits: limits)
    message.id = id
    return RedisBrokerPayload(message: message, epoch: epoch, ref: ref)
  }

  /// Whether `bytes` start like a presence announcement (`sb1p `), not a message.
  public static func isPresence(_ bytes: [UInt8]) -> Bool {
    bytes.starts(with: Array((presenceVersion + " ").utf8))
  }

  /// The announcement of `event` from `node` after its count, as the presence script
  /// takes it (``RedisBrokerScripts/presence``).
  public static func presenceTail(_ event: PresenceEvent, node: String) -> [UInt8] {
    let (kind, from): (String, String) =
      switch event.kind {
      case .join: ("join", "")
      case .leave: ("leave", "")
      case .rename(let old): ("rename", old)
      }
    var out = Array("\(kind) \(node) ".utf8)
    out += Array("\(event.author.utf8.count) \(event.color.utf8.count) \(from.utf8.count) ".utf8)
    out += Array(event.author.utf8) + Array(event.color.utf8) + Array(from.utf8)
    return out
  }

  /// A whole announcement, as the presence script publishes it (for tests and tools).
  public static func presence(_ event: PresenceEvent, node: String) -> [UInt8] {
    Array("\(presenceVersion) \(event.members) ".utf8) + presenceTail(event, node: node)
  }

  /// Decodes a presence announcement of `room`: the event (its `members` the cluster-wide
  /// count) and the node it happened on.
  public static func decodePresence(
    _ bytes: [UInt8], room: String, limits: Limits = Limits()
  ) throws(DecodingError) -> (event: PresenceEvent, node: String) {
    guard bytes.count <= limits.maxBodyBytes else {
      throw DecodingError("announcement over \(limits.maxBodyBytes) bytes")
    }
    var cursor = Cursor(bytes: bytes[...])
    guard try cursor.token(limit: 8) == presenceVersion else {
      throw DecodingError("not a \(presenceVersion) announcement")
    }
    let members = try cursor.number(limit: 10)
    guard members <= maxMembers else { throw DecodingError("member count \(members)") }
    let kind = try cursor.token(limit: 8)
    let node = try cursor.token(limit: limits.maxTokenBytes)
    let authorCount = try cursor.number(limit: 10)
    let colorCount = try cursor.number(limit: 10)
    let fromCount = try cursor.number(limit: 10)
    guard max(authorCount, colorCount, fromCount) <= limits.maxNameBytes else {
      throw DecodingError("name over \(limits.maxNameBytes) bytes")
    }
    let author = try cursor.take(Int(authorCount))
    let color = try cursor.take(Int(colorCount))
    let from = try cursor.take(Int(fromCount))
    guard cursor.rest.isEmpty else { throw DecodingError("bytes after the announcement") }
    guard !author.isEmpty else { throw DecodingError("empty name") }
    let parsed: PresenceEvent.Kind
    switch kind {
    case "join" where fromCount == 0: parsed = .join
    case "leave" where fromCount == 0: parsed = .leave
    case "rename" where fromCount > 0: parsed = .rename(from: from)
    default: throw DecodingError("unknown presence kind \(kind)")
    }
    let event = PresenceEvent(kind: parsed, author: author, room: room, members: Int(members), color: color)
    return (event, node)
  }

  /// Decodes a body of `room` (id 0).
  public static func decodeBody(
    _ bytes: ArraySlice<UInt8>, room: String, limits: Limits = Limits()
  ) throws(DecodingError) -> ChatMessage {
    guard bytes.count <= limits.maxBodyBytes else {
      throw DecodingError("body over \(limits.maxBodyBytes) bytes")
    }
    var cursor = Cursor(bytes: bytes)
    let time = try cursor.signed(limit: 20)
    let flags = try cursor.number(limit: 3)
    guard flags <= 1 else { throw DecodingError("unknown flags \(flags)") }
    let authorCount = try cursor.number(limit: 10)
    let colorCount = try cursor.number(limit: 10)
    guard authorCount <= limits.maxNameBytes, colorCount <= limits.maxNameBytes else {
      throw DecodingError("name over \(limits.maxNameBytes) bytes")
    }
    let author = try cursor.take(Int(authorCount))
    let color = try cursor.take(Int(colorCount))
    return ChatMessage(
      id: 0, room: room, time: time, author: author, color: color,
      text: String(decoding: cursor.rest, as: UTF8.self), isAction: flags == 1)
  }

  /// Reads space-terminated fields off the front of the bytes.
  private struct Cursor {
    var bytes: ArraySlice<UInt8>

    var rest: ArraySlice<UInt8> { bytes }

    mutating func token(limit: Int) throws(DecodingError) -> String {
      guard let space = bytes.prefix(limit + 1).firstIndex(of: UInt8(ascii: " ")) else {
        throw DecodingError("field missing or over \(limit) bytes")
      }
      let field = bytes[bytes.startIndex..<space]
      guard !field.isEmpty else { throw DecodingError("empty field") }
      bytes = bytes[(space + 1)...]
      return String(decoding: field, as: UTF8.self)
    }

    mutating func number(limit: Int) throws(DecodingError) -> UInt64 {
      let text = try token(limit: limit)
      guard text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
        let value = UInt64(text)
      else { throw DecodingError("not a number: \(text)") }
      return value
    }

    mutating func signed(limit: Int) throws(DecodingError) -> Int64 {
      let text = try token(limit: limit)
      guard let value = Int64(text) else { throw DecodingError("not a number: \(text)") }
      return value
    }

    mutating func take(_ count: Int) throws(DecodingError) -> String {
      guard bytes.count >= count else { throw DecodingError("truncated") }
      let field = bytes.prefix(count)
      bytes = bytes.dropFirst(count)
      return String(decoding: field, as: UTF8.self)
    }
  }
}
