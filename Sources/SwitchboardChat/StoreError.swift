/// Why a history store failed.
public struct StoreError: Error, Sendable, CustomStringConvertible, Equatable {
  /// What went wrong, for logs and startup errors.
  public let message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}
