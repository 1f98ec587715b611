/// An `application/x-www-form-urlencoded` body or query string (`a=1&b=two+words`): its
/// fields, percent-decoded with `+` read as a space. A key without `=` maps to `""`; when a
/// key repeats, the first value wins; invalid escapes are kept literally and invalid UTF-8
/// is repaired (``StringProtocol/removingURLPercentEncoding(plusAsSpace:)``).
///
/// A pure value: untrusted bytes in, fields or a ``Refusal`` out, within limits
/// (fuzzed by `fuzz-admin`).
public struct HTTPForm: Sendable, Equatable {
  /// Why a body is not read as a form.
  public enum Refusal: Error, Sendable, Equatable {
    /// More than ``Limits/maxBytes`` bytes.
    case tooLarge
    /// More than ``Limits/maxFields`` fields.
    case tooManyFields
  }

  /// How much a form may hold.
  public struct Limits: Sendable, Equatable {
    /// The most bytes read (default 16 KiB).
    public var maxBytes: Int
    /// The most `&`-separated fields (default 64).
    public var maxFields: Int
    public init(maxBytes: Int = 16 * 1024, maxFields: Int = 64) {
      self.maxBytes = maxBytes
      self.maxFields = maxFields
    }
    /// No limit: for text whose size something else already bounds (a request target).
    public static let unbounded = Limits(maxBytes: .max, maxFields: .max)
  }

  /// The decoded fields.
  public private(set) var fields: [String: String] = [:]

  /// Decodes `bytes`.
  /// - Throws: ``Refusal`` when a limit is exceeded.
  public init(_ bytes: some Collection<UInt8>, limits: Limits = Limits()) throws(Refusal) {
    guard bytes.count <= limits.maxBytes else { throw .tooLarge }
    var count = 0
    // Split at `&` and `=` bytes: a percent-decoded `&` or `=` is data, not a separator.
    for pair in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
      count += 1
      guard count <= limits.maxFields else { throw .tooManyFields }
      let key: String
      let value: String
      if let equals = pair.firstIndex(of: UInt8(ascii: "=")) {
        key = String(decoding: pair[..<equals], as: UTF8.self)
        value = String(decoding: pair[pair.index(after: equals)...], as: UTF8.self)
      } else {
        key = String(decoding: pair, as: UTF8.self)
        value = ""
      }
      let decodedKey = key.removingURLPercentEncoding(plusAsSpace: true)
      if fields[decodedKey] == nil {
        fields[decodedKey] = value.removingURLPercentEncoding(plusAsSpace: true)
      }
    }
  }

  /// The value of `field`, if the form has it.
  public subscript(field: String) -> String? { fields[field] }
}
