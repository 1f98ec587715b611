/// Identifies one member (a TCP connection, a UDP sender, a WebSocket) for the server's life.
public struct MemberID: Hashable, Sendable, CustomStringConvertible {
  /// The raw number (also the `N` of `Client N`).
  public let raw: UInt64
  public init(raw: UInt64) { self.raw = raw }
  public var description: String { "#\(raw)" }
}
