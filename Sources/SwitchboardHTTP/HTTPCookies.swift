/// The `Cookie` request header (RFC 6265 §5.4): `name=value` pairs separated by `;`, each
/// trimmed of spaces and tabs; a value in double quotes loses them; a pair without `=` is
/// skipped. Values are not percent-decoded (servers choose their own encoding; the admin
/// console's session id is hex).
///
/// A pure value: untrusted text in, cookies out, within limits (fuzzed by `fuzz-admin`).
/// A header over the limits reads as no cookies: a browser never sends one.
public struct HTTPCookies: Sendable, Equatable {
  /// The longest header read, in bytes (8 KiB, the limit browsers keep to per cookie line).
  public static let maxBytes = 8 * 1024
  /// The most pairs read.
  public static let maxCookies = 100

  /// The cookies in order (a name may repeat: RFC 6265 lets a browser send the same name for
  /// two paths, the more specific first).
  public private(set) var pairs: [Pair] = []

  /// One `name=value`.
  public struct Pair: Sendable, Equatable {
    public var name: String
    public var value: String
  }

  /// Reads `header` (the value of one `Cookie` header, or several joined by `; `).
  public init(header: String) {
    guard header.utf8.count <= Self.maxBytes else { return }
    for part in header.utf8.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: true) {
      guard pairs.count < Self.maxCookies else { return }
      guard let equals = part.firstIndex(of: UInt8(ascii: "=")) else { continue }
      let name = String(decoding: part[..<equals], as: UTF8.self).trimmingSpacesAndTabs()
      var value = Substring(
        String(decoding: part[part.index(after: equals)...], as: UTF8.self).trimmingSpacesAndTabs())
      if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
      guard !name.isEmpty else { continue }
      pairs.append(Pair(name: String(name), value: String(value)))
    }
  }

  /// The values sent under `name`, in order.
  public func values(_ name: String) -> [String] {
    pairs.filter { $0.name == name }.map(\.value)
  }
}
