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
  /// Delivers a batch of one room's messages, in order (``MessageBatch``). The default
  /// gives them one at a time through ``receive(_:cache:)``; a member that can send them
  /// all with one write (every frame back to back, encoded once per shard into the batch's
  /// cache) implements this.
  func receive(_ batch: inout MessageBatch)
  /// Calls ``receive(_:)`` on the member at `object` without retaining it, like
  /// ``receive(unretained:_:cache:)``; conformers keep the default.
  static func receive(unretained object: UnsafeMutableRawPointer, batch: inout MessageBatch)
  /// The server API removes the member (``ChatHub/disconnect(name:room:reason:)``): tell it
  /// `reason` the way its transport documents (docs/PROTOCOLS.md, "Disconnected by the
  /// server") and end its membership. The default does nothing.
  func disconnect(reason: String)
  /// The member's network address (`IP:PORT`), for the admin console's member list; read on
  /// the member's shard. The default is `nil` (a member with none to show).
  var remoteAddress: String? { get }
}

extension LocalMember {
  /// The default: nothing (a member that cannot be told).
  public func disconnect(reason: String) {}
  /// The default: no address.
  public var remoteAddress: String? { nil }
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

  /// The default: each message through ``receive(_:cache:)``, as separate deliveries.
  @inlinable
  public func receive(_ batch: inout MessageBatch) {
    batch.deliverEach { event, cache in receive(event, cache: &cache) }
  }

  /// The default: `object` reinterpreted as `Self`, called at +0.
  @inlinable
  public static func receive(unretained object: UnsafeMutableRawPointer, batch: inout MessageBatch) {
    // Safety: as for ``receive(unretained:_:cache:)``.
    Unmanaged<Self>.fromOpaque(object)._withUnsafeGuaranteedRef { $0.receive(&batch) }
  }
}
