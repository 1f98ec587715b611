import Foundation
import SwitchboardWire

/// Feature negotiation and typing indicators on the wire (docs/PROTOCOLS.md, the
/// `features` and `typing` frames, "Typing", and the `/typing` lines), as pure functions.
extension ChatWire {
  /// `{"type":"features","data":["typing",…]}`: asks for `features` (names sorted, so the
  /// frame is the same for the same set).
  static func featuresFrame(_ features: Set<ChatClient.Feature>) -> String {
    let names = features.map(\.rawValue).sorted().map(quote)
    return #"{"type":"features","data":["# + names.joined(separator: ",") + "]}"
  }

  /// `{"type":"typing","data":{"active":true}}` (or `false`).
  static func typingFrame(active: Bool) -> String {
    #"{"type":"typing","data":{"active":\#(active)}}"#
  }

  /// The line that asks a line server for typing notices.
  static let typingOnLine = "/typing on"
  /// The line that says this member is typing (the server ends it on its own).
  static let typingLine = "/typing"

  /// The data of a `features` frame: `{"version":2,"supported":[…],"enabled":[…]}`.
  /// Names this client does not know are kept (a newer server's); a frame without an object
  /// reads as a server that speaks none.
  static func features(_ data: Any?) -> Inbound {
    guard let data = data as? [String: Any] else { return .features(.none) }
    func names(_ key: String) -> Set<ChatClient.Feature> {
      Set((data[key] as? [Any] ?? []).compactMap { ($0 as? String).map(ChatClient.Feature.init(rawValue:)) })
    }
    return .features(
      ChatClient.ServerFeatures(
        version: (data["version"] as? NSNumber)?.intValue, supported: names("supported"),
        enabled: names("enabled")))
  }

  /// The data of a `typing` frame: `{"room":R,"author":A,"active":B}`; ignored without an
  /// author or an `active`.
  static func typing(_ data: Any?, room: String) -> Inbound {
    guard let data = data as? [String: Any], let author = data["author"] as? String, !author.isEmpty,
      let active = data["active"] as? Bool
    else { return .ignored }
    return .typing(room: data["room"] as? String ?? room, author: author, active: active)
  }

  /// The author of a line server's `* NAME is typing` notice (already unescaped, as
  /// ``decodeLine(_:room:me:)`` gives notices); `nil` for any other line.
  static func typingAuthor(inNotice line: String) -> String? {
    guard line.hasPrefix("* "), line.hasSuffix(" is typing") else { return nil }
    let name = line.dropFirst(2).dropLast(" is typing".count)
    return name.isEmpty ? nil : String(name)
  }

  /// What a line server's answer to `/typing on` or `/typing off` says: `* typing notices
  /// on` (typing spoken and enabled), `* typing notices off` (spoken, not enabled); `nil` for
  /// any other line.
  static func lineFeatures(inNotice line: String) -> ChatClient.ServerFeatures? {
    switch line {
    case "* typing notices on": ChatClient.ServerFeatures(supported: [.typing], enabled: [.typing])
    case "* typing notices off": ChatClient.ServerFeatures(supported: [.typing], enabled: [])
    default: nil
    }
  }

  /// Whether `line` is an older line server's answer to `/typing on`: `! unknown command
  /// /typing …`.
  static func refusesTyping(_ line: String) -> Bool {
    line.hasPrefix("unknown command /typing")
  }
}
