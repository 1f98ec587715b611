import SwitchboardWire

/// A message before its room's broker gave it an id: what ``RoomBroker/publish(_:on:completion:)`` takes.
public struct MessageDraft: Sendable {
  /// The message as it will be kept, its ``ChatMessage/id`` still 0.
  public var content: ChatMessage
  /// The member of this node who sent it; handed back with the delivery so dialects that
  /// do not echo can skip it. Opaque to brokers.
  public var origin: MemberID?
  /// The sender's idempotency key (``clientKey(ref:subject:name:address:text:)``), `nil` when the
  /// client sent no `ref`. A broker that sees a key again within its lifetime keeps
  /// nothing, delivers nothing and answers with the id the first publish got.
  public var clientKey: String?
  /// The broker's object for the room (``RoomSnapshot/brokerRoom`` of the room's last
  /// `openRoom`), `nil` when the broker gave none: a broker that recognises it uses it
  /// instead of looking the room up by name, and falls back to the name otherwise.
  public var brokerRoom: BrokerRoomHandle?
}

extension MessageDraft {
  /// A draft of `content` (its id is ignored) from `origin`, with the client's key if any.
  /// (In an extension, so the memberwise `init(content:origin:clientKey:brokerRoom:)` stays:
  /// the hub's publish makes its drafts with it, one struct built in place, where an
  /// initializer that assigns each field built a draft in memory and copied it.)
  public init(
    _ content: ChatMessage, origin: MemberID? = nil, clientKey: String? = nil,
    brokerRoom: BrokerRoomHandle? = nil
  ) {
    self.init(content: content, origin: origin, clientKey: clientKey, brokerRoom: brokerRoom)
  }

  /// The room it is sent to.
  public var room: String { content.room }

  /// The message with its assigned id.
  public func message(id: UInt64) -> ChatMessage {
    var message = content
    message.id = id
    return message
  }

  /// The idempotency key of a client's `ref`, scoped to its sender (docs/PROTOCOLS.md,
  /// "Refs"): with auth the token's `sub` (`subject`), else the name the sender asked for
  /// (`alice`, also when the room shows `alice (2)`: a client that reconnects while its old
  /// connection lingers is still the same sender) together with the address it connects
  /// from (`address`, the peer's IP without the port). A name is anyone's to ask for; the
  /// address is not, so a stranger elsewhere who asks for `alice` and guesses her next ref
  /// and text cannot make her message be dropped as a repeat, while her own client, which
  /// reconnects from the same machine and re-sends with the same ref, is still recognised.
  /// The room is implied (brokers keep keys per room). The text is part of the key, so two
  /// senders that share a name and a ref counter (every Switchboard client counts `c1`,
  /// `c2` … from its start) lose nothing unless they also send the same text.
  ///
  /// `t` or `n` (token or name scope), then three 16-digit hex FNV-1a digests — of the
  /// scope, the ref and the text — separated by `:`: 52 ASCII bytes whatever the input,
  /// safe in a Redis key and cheap to keep.
  public static func clientKey(
    ref: String, subject: String?, name: String, address: String? = nil, text: String
  ) -> String {
    clientKey(ref: ref, subject: subject, name: name, address: address, textUTF8: text.utf8)
  }

  /// ``clientKey(ref:subject:name:address:text:)`` of a text given as its UTF-8 bytes.
  static func clientKey<Text: Sequence<UInt8>>(
    ref: String, subject: String?, name: String, address: String?, textUTF8: Text
  ) -> String {
    // NUL cannot be in a name the hub accepts nor in an address, so the two cannot run
    // into each other.
    let scope = subject.map { ("t", $0) } ?? ("n", address.map { name + "\u{0}" + $0 } ?? name)
    return scope.0 + ":" + digest(scope.1.utf8) + ":" + digest(ref.utf8) + ":" + digest(textUTF8)
  }

  /// FNV-1a (64 bits) of the UTF-8 bytes, as 16 hex digits: stable across processes and
  /// nodes (unlike `Hasher`, which is seeded per process).
  static func digest<Bytes: Sequence<UInt8>>(_ utf8: Bytes) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x0000_0100_0000_01b3
    }
    let hex = String(hash, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
  }
}
