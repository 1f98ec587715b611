/// A failure of the test harness itself: a deadline passed, a tool or socket call failed,
/// a peer said something unexpected. Every suite throws this one.
public struct TestFailure: Error, CustomStringConvertible {
  public let description: String
  public init(_ description: String) { self.description = description }
}
