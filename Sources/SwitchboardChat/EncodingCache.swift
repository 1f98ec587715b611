/// Per-event, per-shard storage for encodings, keyed by a small dialect number.
///
/// Eight slots held inline (no array, nothing allocated for an empty cache) and read
/// through inlinable code, so a delivery's look-up is specialised in the caller's module:
/// a field read, no generic call, no dynamic cast. Each slot holds one type of encoding
/// (the callers' dialect numbers say which); reading a slot as another type is a
/// programming error, checked in debug builds only.
public struct EncodingCache {
  @usableFromInline var slot0, slot1, slot2, slot3, slot4, slot5, slot6, slot7: AnyObject?
  /// `true` when no other delivery is queued behind this one on the shard's thread, so a
  /// member with nothing else pending may hand its bytes to the socket right away: one
  /// pass over the room's connections instead of one to queue and one to flush. When
  /// more deliveries are queued it is `false`, and their frames share one batched write.
  public var sendNow = false

  @inlinable
  public init(sendNow: Bool = false) {
    self.sendNow = sendNow
  }

  /// The encoding stored for `dialect` (0–7), making it with `encode` the first time.
  @inlinable
  public mutating func value<T: AnyObject>(for dialect: Int, _ encode: () -> T) -> T {
    if let existing = self[dialect] {
      assert(existing is T, "EncodingCache slot \(dialect) holds another type")
      return unsafeDowncast(existing, to: T.self)
    }
    let made = encode()
    self[dialect] = made
    return made
  }

  /// Calls `body` with the encoding stored for `dialect` (0–7), making it with `encode` the
  /// first time, borrowed: unlike ``value(for:_:)``, whose result is a new reference (a
  /// retain, and a release once the caller is done), nothing is retained — the fan-out's
  /// way, once per member of every delivery.
  @inlinable
  public mutating func withValue<T: AnyObject, R>(
    for dialect: Int, _ encode: () -> T, _ body: (T) -> R
  ) -> R {
    var object = storedAddress(dialect)
    if object == nil {
      self[dialect] = encode()
      object = storedAddress(dialect)
    }
    assert(self[dialect] is T, "EncodingCache slot \(dialect) holds another type")
    // Safety: the slot holds a strong reference to a `T` until the cache is destroyed or
    // the slot is set again, and neither can happen while `body` runs: the cache is
    // borrowed exclusively (`mutating`) for the length of the call.
    return Unmanaged<T>.fromOpaque(object.unsafelyUnwrapped)._withUnsafeGuaranteedRef(body)
  }

  /// The address of the object in slot `dialect`, read as a bit pattern (no retain).
  @inlinable
  mutating func storedAddress(_ dialect: Int) -> UnsafeMutableRawPointer? {
    withSlot(dialect) { slot in
      withUnsafeMutablePointer(to: &slot) { UnsafeRawPointer($0).load(as: UnsafeMutableRawPointer?.self) }
    }
  }

  /// Calls `body` with slot `dialect` (0–7), in place.
  @inlinable
  mutating func withSlot<R>(_ dialect: Int, _ body: (inout AnyObject?) -> R) -> R {
    switch dialect {
    case 0: return body(&slot0)
    case 1: return body(&slot1)
    case 2: return body(&slot2)
    case 3: return body(&slot3)
    case 4: return body(&slot4)
    case 5: return body(&slot5)
    case 6: return body(&slot6)
    case 7: return body(&slot7)
    default: preconditionFailure("EncodingCache has slots 0–7, not \(dialect)")
    }
  }

  @inlinable
  subscript(dialect: Int) -> AnyObject? {
    get {
      switch dialect {
      case 0: slot0
      case 1: slot1
      case 2: slot2
      case 3: slot3
      case 4: slot4
      case 5: slot5
      case 6: slot6
      case 7: slot7
      default: preconditionFailure("EncodingCache has slots 0–7, not \(dialect)")
      }
    }
    set { withSlot(dialect) { $0 = newValue } }
  }
}
