/// Identifies one member (a TCP connection, a UDP sender, a WebSocket) for the server's life.
public struct MemberID: Hashable, Sendable, CustomStringConvertible {
  /// The raw number (also the `N` of `Client N`).
  public let raw: UInt64
  /// The hub's record of the member when the hub made the id (``ChatHub/nextMemberID()``):
  /// a publish finds the member's room through it, with no lookup under a shared lock.
  /// Not part of the identity (equality and hashing use `raw` only).
  let record: HubMemberRecord?
  public init(raw: UInt64) {
    self.raw = raw
    record = nil
  }
  init(raw: UInt64, record: HubMemberRecord) {
    self.raw = raw
    self.record = record
  }
  public var description: String { "#\(raw)" }
  public static func == (a: MemberID, b: MemberID) -> Bool { a.raw == b.raw }
  public func hash(into hasher: inout Hasher) { hasher.combine(raw) }
  /// The same identity without the record, for events handed to other threads (a
  /// reference shared across loops costs atomic reference counting on every copy).
  var detached: MemberID { record == nil ? self : MemberID(raw: raw) }
  /// How the member is connected (`tcp`, `ws` …) and when it entered its current room (ms
  /// since the epoch), read from the hub's record: what a cluster broker keeps in its
  /// presence entries for the server API. `nil` for an id without the record (made with
  /// ``init(raw:)``, or detached) or without a transport.
  public var connection: (transport: String, since: Int64)? {
    guard let record, !record.transport.isEmpty else { return nil }
    return (record.transport, record.joined.load(ordering: .relaxed))
  }
}
