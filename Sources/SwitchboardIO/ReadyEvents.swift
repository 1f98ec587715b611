/// Readiness reported for one file descriptor.
public struct ReadyEvents: OptionSet, Sendable, Hashable {
  public let rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }
  public static let readable = ReadyEvents(rawValue: 1)
  public static let writable = ReadyEvents(rawValue: 2)
  /// Hang-up or error: the handler should read (to learn the error) and close.
  public static let hangup = ReadyEvents(rawValue: 4)
}
