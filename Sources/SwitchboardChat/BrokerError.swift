/// Why a ``RoomBroker`` call failed.
public struct BrokerError: Error, Sendable, Hashable, CustomStringConvertible {
  private enum Code: Hashable {
    case notStored
    case unavailable
    case busy
    case closed
  }
  private let code: Code
  /// What went wrong, for logs and error frames.
  public let detail: String
  /// The id the message was given before it failed, if it got one.
  public let messageID: UInt64?

  private init(_ code: Code, _ detail: String, messageID: UInt64? = nil) {
    self.code = code
    self.detail = detail
    self.messageID = messageID
  }

  /// Message `id` was delivered but its history store did not keep it (a full disk, a
  /// stalled writer); the server answers `not_stored`.
  public static func notStored(_ error: StoreError, id: UInt64) -> BrokerError {
    BrokerError(.notStored, error.message, messageID: id)
  }
  /// The broker cannot be reached (a cluster broker's server is down) or does not know the room.
  public static func unavailable(_ detail: String) -> BrokerError { BrokerError(.unavailable, detail) }
  /// Too much is queued for a room that is still loading (``HubConfiguration/maxQueuedWhileLoading``).
  public static let busy = BrokerError(.busy, "too many messages wait for the room to load")
  /// The broker was closed (the server is stopping).
  public static let closed = BrokerError(.closed, "the room broker is closed")

  /// Whether the message was delivered but not kept.
  public var isNotStored: Bool { code == .notStored }

  public var description: String { detail }
}
