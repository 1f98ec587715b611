/// A member as its own loop sees it: the object that turns room events into bytes on a
/// socket. Called only on the member's shard thread.
public protocol LocalMember: AnyObject {
  /// The member's identity.
  var memberID: MemberID { get }
  /// Delivers `event`. `cache` holds encodings shared by every member of this shard for
  /// this event (one per dialect), so a frame is encoded once and its bytes shared.
  func receive(_ event: ChatEvent, cache: inout EncodingCache)
}
