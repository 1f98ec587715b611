/// Names one registration in an ``MDNSResponder`` (stays the same across renames).
public struct MDNSServiceID: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// A number unique within one responder.
  public let rawValue: Int

  /// An id from its number.
  public init(rawValue: Int) { self.rawValue = rawValue }

  /// Ids order by registration.
  public static func < (lhs: MDNSServiceID, rhs: MDNSServiceID) -> Bool { lhs.rawValue < rhs.rawValue }

  /// `service#N`.
  public var description: String { "service#\(rawValue)" }
}
