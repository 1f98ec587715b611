/// What a successful publish completes with: where the message stands in its room.
public struct PublishReceipt: Sendable, Hashable {
  /// The id the broker assigned.
  public var id: UInt64
  /// The epoch of the room's history the id belongs to.
  public var epoch: String

  public init(id: UInt64, epoch: String) {
    self.id = id
    self.epoch = epoch
  }
}
