/// A member as its own loop sees it: the object that turns room events into bytes on a
/// socket. Called only on the member's shard thread.
public protocol LocalMember: AnyObject {
  /// The member's identity.
  var memberID: MemberID { get }
  /// Delivers `event`. `cache` holds encodings shared by every member of this shard for
  /// this event (one per dialect), so a frame is encoded once and its bytes shared.
  func receive(_ event: ChatEvent, cache: inout EncodingCache)
  /// Calls ``receive(_:cache:)`` on the member at `object` (an unretained reference to an
  /// instance of `Self`), without retaining it: the fan-out's call, made once per member
  /// of every delivery. Conformers keep the default, which is inlinable so that the
  /// conformance's witness is specialised into a direct call of their `receive`.
  static func receive(unretained object: UnsafeMutableRawPointer, _ event: ChatEvent, cache: inout EncodingCache)
}

extension LocalMember {
  /// The default: `object` reinterpreted as `Self`, called at +0.
  @inlinable
  public static func receive(
    unretained object: UnsafeMutableRawPointer, _ event: ChatEvent, cache: inout EncodingCache
  ) {
    // Safety: the caller (``HubShardRoom``) holds a strong reference to the member for the
    // length of the call, so the object is alive; it was made from a `Self` instance.
    Unmanaged<Self>.fromOpaque(object)._withUnsafeGuaranteedRef { $0.receive(event, cache: &cache) }
  }
}
