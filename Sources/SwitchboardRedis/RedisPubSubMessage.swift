/// A message a ``RedisSubscriber`` received on one of its subscriptions.
public struct RedisPubSubMessage: Sendable, Hashable {
  /// How the message matched.
  public enum Kind: Sendable, Hashable {
    /// A channel given to `SUBSCRIBE`.
    case channel
    /// A pattern given to `PSUBSCRIBE` (``RedisPubSubMessage/pattern`` says which).
    case pattern
    /// A shard channel given to `SSUBSCRIBE` (sharded pub/sub, Redis 7).
    case shard
  }

  /// How it matched.
  public var kind: Kind
  /// The channel it was published on.
  public var channel: String
  /// The pattern that matched, for ``Kind/pattern``.
  public var pattern: String?
  /// The published bytes.
  public var payload: [UInt8]

  /// A message.
  public init(kind: Kind, channel: String, pattern: String? = nil, payload: [UInt8]) {
    self.kind = kind
    self.channel = channel
    self.pattern = pattern
    self.payload = payload
  }
}
