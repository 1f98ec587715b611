/// A problem with the benchmark's options or its run.
public struct BenchError: Error, Sendable, CustomStringConvertible {
  public let description: String
  public init(_ description: String) { self.description = description }
}
