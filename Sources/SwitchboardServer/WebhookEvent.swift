import SwitchboardChat
import SwitchboardHTTP
import SwitchboardWire

/// The kinds of event a webhook can carry (`--webhook-events`, docs/API.md "Webhooks").
public enum WebhookEventType: String, Sendable, Hashable, CaseIterable, Comparable {
  /// The first member anywhere (every node under `--redis`) came into a room.
  case roomOccupied = "room.occupied"
  /// The last member anywhere left a room.
  case roomVacated = "room.vacated"
  /// A named member joined a room (sent by the node it is connected to).
  case memberJoined = "member.joined"
  /// A named member left a room (sent by the node it was connected to).
  case memberLeft = "member.left"
  /// A message was published in a room (sent by the node where it was published). Off by default.
  case messagePublished = "message.published"

  /// The events sent when `--webhook-events` is not given: all but `message.published`.
  public static let defaults: Set<WebhookEventType> = [.roomOccupied, .roomVacated, .memberJoined, .memberLeft]

  /// Parses a comma-separated list (`room.occupied,member.joined`).
  /// - Throws: ``WebhookError`` naming the first unknown event.
  public static func parseList(_ text: String) throws(WebhookError) -> Set<WebhookEventType> {
    var set = Set<WebhookEventType>()
    for name in text.split(separator: ",", omittingEmptySubsequences: false) {
      let trimmed = String(name.trimmingSpacesAndTabs())
      guard let type = WebhookEventType(rawValue: trimmed) else {
        throw WebhookError(
          "unknown webhook event '\(trimmed)' (known: \(allCases.map(\.rawValue).joined(separator: ", ")))")
      }
      set.insert(type)
    }
    return set
  }

  public static func < (a: WebhookEventType, b: WebhookEventType) -> Bool { a.rawValue < b.rawValue }
}

/// A webhook setting that cannot be used (a usage error at startup).
public struct WebhookError: Error, Sendable, CustomStringConvertible {
  /// What is wrong.
  public let description: String
  /// An error saying `description`.
  public init(_ description: String) { self.description = description }
}

/// One event in a webhook batch.
public struct WebhookEvent: Sendable, Hashable {
  /// What happened.
  public var type: WebhookEventType
  /// The room.
  public var room: String
  /// The member's name (member events) — for a rename, the new name on `member.joined`
  /// and the old one on `member.left`.
  public var member: String?
  /// The message's id, author and text (`message.published`).
  public var messageID: UInt64?
  /// The message's author.
  public var author: String?
  /// The message's text.
  public var text: String?
  /// When it happened, in milliseconds since the Unix epoch.
  public var time: Int64

  /// Creates an event.
  public init(
    type: WebhookEventType, room: String, member: String? = nil, messageID: UInt64? = nil, author: String? = nil,
    text: String? = nil, time: Int64 = ChatClock.milliseconds()
  ) {
    self.type = type
    self.room = room
    self.member = member
    self.messageID = messageID
    self.author = author
    self.text = text
    self.time = time
  }

  /// The event as a JSON object: `{"type","room","time"}` plus `member`, or `id`,
  /// `author` and `text`, where they apply.
  public var json: String {
    var out = "{\"type\":\"\(type.rawValue)\",\"room\":\(JSONDialect.quote(room))"
    if let member { out += ",\"member\":\(JSONDialect.quote(member))" }
    if let messageID { out += ",\"id\":\(messageID)" }
    if let author { out += ",\"author\":\(JSONDialect.quote(author))" }
    if let text { out += ",\"text\":\(JSONDialect.quote(text))" }
    return out + ",\"time\":\(time)}"
  }

  /// A batch's body: `{"time":MS,"node":NODE,"events":[…]}`.
  public static func batch(_ events: some Sequence<WebhookEvent>, node: String, time: Int64) -> [UInt8] {
    let list = events.map(\.json).joined(separator: ",")
    return Array("{\"time\":\(time),\"node\":\(JSONDialect.quote(node)),\"events\":[\(list)]}".utf8)
  }
}
