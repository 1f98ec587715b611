/// What a registered file descriptor wants to hear about.
public struct Interest: OptionSet, Sendable, Hashable {
  public let rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }
  /// Readable (or accept-able, or closed by the peer).
  public static let read = Interest(rawValue: 1)
  /// Writable.
  public static let write = Interest(rawValue: 2)
}
