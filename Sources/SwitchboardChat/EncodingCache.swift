/// Per-event, per-shard storage for encodings, keyed by a small dialect number.
public struct EncodingCache {
  private var slots: [AnyObject?] = [nil, nil, nil, nil, nil, nil, nil, nil]
  /// `true` when no other delivery is queued behind this one on the shard's thread, so a
  /// member with nothing else pending may hand its bytes to the socket right away: one
  /// pass over the room's connections instead of one to queue and one to flush. When
  /// more deliveries are queued it is `false`, and their frames share one batched write.
  public var sendNow = false

  public init(sendNow: Bool = false) {
    self.sendNow = sendNow
  }

  /// The encoding stored for `dialect` (0–7), making it with `encode` the first time.
  public mutating func value<T: AnyObject>(for dialect: Int, _ encode: () -> T) -> T {
    if let existing = slots[dialect] as? T { return existing }
    let made = encode()
    slots[dialect] = made
    return made
  }
}
