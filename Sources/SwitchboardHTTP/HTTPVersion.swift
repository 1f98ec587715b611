/// An HTTP protocol version such as 1.1.
public struct HTTPVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// The major version (the `1` of `HTTP/1.1`).
  public var major: Int
  /// The minor version (the second `1` of `HTTP/1.1`).
  public var minor: Int

  /// Creates a version.
  public init(major: Int, minor: Int) {
    self.major = major
    self.minor = minor
  }

  /// HTTP/1.0.
  public static let http1_0 = HTTPVersion(major: 1, minor: 0)
  /// HTTP/1.1.
  public static let http1_1 = HTTPVersion(major: 1, minor: 1)

  /// `HTTP/major.minor`, as written on the wire.
  public var description: String { "HTTP/\(major).\(minor)" }

  /// Orders by major, then minor.
  public static func < (lhs: HTTPVersion, rhs: HTTPVersion) -> Bool {
    (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
  }
}
