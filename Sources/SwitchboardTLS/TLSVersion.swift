/// The oldest TLS version a context accepts.
public struct TLSVersion: Sendable, Hashable, CustomStringConvertible {
  let rawValue: Int32
  /// TLS 1.2 (the default minimum).
  public static let tls12 = TLSVersion(rawValue: 0x0303)
  /// TLS 1.3.
  public static let tls13 = TLSVersion(rawValue: 0x0304)
  public var description: String { rawValue == 0x0304 ? "TLSv1.3" : "TLSv1.2" }
}
