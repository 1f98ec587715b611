/// An ordered list of HTTP header fields.
///
/// Order and repeated names are kept as received. Name lookups are ASCII case-insensitive.
public struct HTTPHeaders: Sendable, Sequence, Hashable, ExpressibleByDictionaryLiteral {
  /// One header field.
  public typealias Element = (name: String, value: String)

  private var fields: [Element]

  /// Creates an empty list.
  public init() { fields = [] }

  /// Creates a list from `(name, value)` pairs, in order.
  public init(_ fields: [(String, String)]) {
    self.fields = fields.map { (name: $0.0, value: $0.1) }
  }

  /// Creates a list from a literal such as `["Upgrade": "websocket"]`, keeping the literal's order.
  public init(dictionaryLiteral elements: (String, String)...) {
    self.init(elements)
  }

  /// The number of fields.
  public var count: Int { fields.count }

  /// Whether there are no fields.
  public var isEmpty: Bool { fields.isEmpty }

  /// The value of the first field called `name` (case-insensitive), or `nil`.
  public subscript(_ name: String) -> String? {
    fields.first { $0.name.asciiCaseInsensitiveEquals(name) }?.value
  }

  /// The values of every field called `name` (case-insensitive), in order.
  public func values(_ name: String) -> [String] {
    fields.lazy.filter { $0.name.asciiCaseInsensitiveEquals(name) }.map(\.value)
  }

  /// Appends a field, keeping any existing ones with the same name.
  public mutating func add(name: String, value: String) {
    fields.append((name: name, value: value))
  }

  /// Replaces every field called `name` with one field holding `value`, or appends it.
  public mutating func replaceOrAdd(name: String, value: String) {
    if let index = fields.firstIndex(where: { $0.name.asciiCaseInsensitiveEquals(name) }) {
      fields[index].value = value
      var next = index + 1
      while next < fields.count {
        if fields[next].name.asciiCaseInsensitiveEquals(name) {
          fields.remove(at: next)
        } else {
          next += 1
        }
      }
    } else {
      add(name: name, value: value)
    }
  }

  /// Removes every field called `name` (case-insensitive).
  public mutating func remove(name: String) {
    fields.removeAll { $0.name.asciiCaseInsensitiveEquals(name) }
  }

  /// Whether any field called `name` lists `token` in its comma-separated value, compared
  /// case-insensitively: `contains(token: "upgrade", in: "Connection")` is true for
  /// `Connection: keep-alive, Upgrade`.
  public func contains(token: String, in name: String) -> Bool {
    for field in fields where field.name.asciiCaseInsensitiveEquals(name) {
      for item in field.value.split(separator: ",", omittingEmptySubsequences: true)
      where item.trimmingSpacesAndTabs().asciiCaseInsensitiveEquals(token) {
        return true
      }
    }
    return false
  }

  /// Iterates the fields in order.
  public func makeIterator() -> IndexingIterator<[Element]> {
    fields.makeIterator()
  }

  /// Equal when both lists hold the same fields in the same order (names compared exactly).
  public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
    lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
  }

  /// Hashes the fields in order.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(fields.count)
    for field in fields {
      hasher.combine(field.name)
      hasher.combine(field.value)
    }
  }
}

extension HTTPHeaders: CustomStringConvertible {
  /// The fields as `Name: value` lines.
  public var description: String {
    fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
  }
}

extension StringProtocol {
  /// ASCII case-insensitive comparison without allocating.
  func asciiCaseInsensitiveEquals(_ other: some StringProtocol) -> Bool {
    let lhs = utf8, rhs = other.utf8
    guard lhs.count == rhs.count else { return false }
    return lhs.elementsEqual(rhs) { $0.asciiLowercased == $1.asciiLowercased }
  }
}

extension UInt8 {
  var asciiLowercased: UInt8 { (0x41...0x5A).contains(self) ? self | 0x20 : self }
}
