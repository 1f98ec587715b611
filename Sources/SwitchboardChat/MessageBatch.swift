import SwitchboardWire

/// One message of a ``MessageBatch`` and the member that sent it.
public struct BatchedMessage: Sendable {
  /// The message.
  public let message: ChatMessage
  // The origin as its raw id (a `MemberID?` carries a reference, copied with an outlined
  // copy per use): `hasOrigin` tells whether there is one.
  @usableFromInline let originRaw: UInt64
  @usableFromInline let hasOrigin: Bool

  /// `message`, sent by `origin` (`nil`: from another node, or no member).
  @inlinable
  public init(_ message: ChatMessage, origin: MemberID?) {
    self.message = message
    originRaw = origin?.raw ?? 0
    hasOrigin = origin != nil
  }

  /// The member that sent it, if any.
  @inlinable public var origin: MemberID? { hasOrigin ? MemberID(raw: originRaw) : nil }

  /// Whether `member` sent it.
  @inlinable public func isFrom(_ member: MemberID) -> Bool { hasOrigin && originRaw == member.raw }

  /// The event a separate delivery of it would carry.
  @inlinable public var event: ChatEvent { .message(message, origin: origin) }

  /// Where the message at `index` of `messages` lies, for the wire's encoders to read it in
  /// place: a message passed by value to a function of another module is copied first.
  @inline(__always)
  static func message(in messages: UnsafeBufferPointer<BatchedMessage>, at index: Int)
    -> UnsafePointer<ChatMessage>
  {
    precondition(index >= 0 && index < messages.count, "BatchedMessage: index \(index) outside the batch")
    return (messages.baseAddress.unsafelyUnwrapped + index).pointer(to: \.message).unsafelyUnwrapped
  }
}

/// Messages of one room handed to a shard's members together: those published to the room
/// while one delivery task waited on the shard (in practice, one loop iteration's), in the
/// room's order.
///
/// A member that takes a batch (``LocalMember/receive(_:)``) can send every frame with one
/// write, encoded once per shard into ``cache``; any other member is given the messages one
/// at a time (``deliverEach(_:)``), each with a cache of its own shared by the shard's
/// members, exactly as separate deliveries would give them.
public struct MessageBatch {
  /// The messages, in order.
  public let messages: ContiguousArray<BatchedMessage>
  /// Encodings of the whole batch, one per dialect, shared by the shard's members (say,
  /// every message's frame back to back). ``EncodingCache/sendNow`` is the batch's.
  public var cache: EncodingCache
  /// For ``deliverEach(_:)``: each message's event and a cache for it, made the first time
  /// a member needs them.
  @usableFromInline var single: ContiguousArray<(event: ChatEvent, cache: EncodingCache)> = []

  /// A batch of `messages`; `sendNow` as for a single delivery.
  @inlinable
  public init(_ messages: ContiguousArray<BatchedMessage>, sendNow: Bool) {
    self.messages = messages
    cache = EncodingCache(sendNow: sendNow)
  }

  /// The number of messages.
  @inlinable public var count: Int { messages.count }

  /// Whether `member` sent one of the messages.
  @inlinable
  public func contains(origin member: MemberID) -> Bool {
    messages.withUnsafeBufferPointer { messages in messages.contains { $0.isFrom(member) } }
  }

  /// Calls `body` with the batch's encoding for `dialect` (0–7), made from the messages by
  /// `encode` the first time, borrowed (see ``EncodingCache/withValue(for:_:_:)``).
  @inlinable
  public mutating func withValue<T: AnyObject, R>(
    for dialect: Int, _ encode: (UnsafeBufferPointer<BatchedMessage>) -> T, _ body: (T) -> R
  ) -> R {
    let messages = self.messages
    return cache.withValue(for: dialect, { messages.withUnsafeBufferPointer(encode) }, body)
  }

  /// Calls `body` with each message's event and the cache its members share, in order, as
  /// separate deliveries would: only the last may send at once (``EncodingCache/sendNow``),
  /// so the others' frames leave with it in one write.
  @inlinable
  public mutating func deliverEach(_ body: (ChatEvent, inout EncodingCache) -> Void) {
    if single.isEmpty {
      single.reserveCapacity(messages.count)
      for message in messages { single.append((message.event, EncodingCache())) }
      single[messages.count - 1].cache.sendNow = cache.sendNow
    }
    single.withUnsafeMutableBufferPointer { single in
      for i in single.indices { body(single[i].event, &single[i].cache) }
    }
  }
}
