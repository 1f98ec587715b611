/// The data of a TXT record as DNS-SD uses it: an ordered list of `key[=value]` strings
/// (RFC 6763 §6).
///
/// The three forms stay distinct: `key` (a boolean attribute, ``Entry/value`` is `nil`), `key=`
/// (present with an empty value) and `key=value`. Values are bytes. Order is kept as sent and
/// equality is exact (entries, order, case); ``entry(forKey:)`` looks keys up ignoring ASCII
/// case and returns the first match, as §6.4 asks.
///
/// An empty TXT goes on the wire as one zero byte (a single empty string, RFC 6763 §6.1): a
/// zero-length rdata is invalid DNS and makes the service invisible to iOS. Decoding a
/// zero-length rdata or a lone zero byte both give the empty TXT; other empty strings are
/// skipped, so an ``Entry`` is never empty.
public struct DNSTXT: Sendable, Hashable, CustomStringConvertible {
  /// One string of a TXT record: 1...255 bytes, read as `key`, `key=` or `key=value`.
  public struct Entry: Sendable, Hashable, CustomStringConvertible {
    /// The whole string as on the wire.
    public let bytes: [UInt8]

    /// Longest string, in bytes (its length is one byte on the wire).
    public static let maxLength = 255

    /// An entry from its exact bytes (anything from 1 to 255 bytes, as a decoder finds it).
    /// - Throws: ``DNSError/invalidTXTEntry`` when empty or longer than 255 bytes.
    public init(bytes: [UInt8]) throws(DNSError) {
      guard !bytes.isEmpty, bytes.count <= Self.maxLength else {
        throw DNSError.invalidTXTEntry.with("TXT string of \(bytes.count) bytes (1...255 allowed)")
      }
      self.bytes = bytes
    }

    /// An entry from its text taken literally: `"path=/"`, `"paused"`, `"note="`.
    /// - Throws: ``DNSError/invalidTXTEntry`` when empty or longer than 255 bytes in UTF-8.
    public init(_ text: String) throws(DNSError) { try self.init(bytes: Array(text.utf8)) }

    /// `key` alone when `value` is `nil`, else `key=value` (an empty value gives `key=`).
    /// - Throws: ``DNSError/invalidTXTEntry`` when the key is empty, holds `=` or anything but
    ///   printable ASCII (RFC 6763 §6.4), or the entry is longer than 255 bytes.
    public init(key: String, value: [UInt8]?) throws(DNSError) {
      let keyBytes = Array(key.utf8)
      guard !keyBytes.isEmpty, keyBytes.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E && $0 != UInt8(ascii: "=") })
      else {
        throw DNSError.invalidTXTEntry.with("TXT key \"\(key)\" must be printable ASCII without '='")
      }
      try self.init(bytes: value.map { keyBytes + [UInt8(ascii: "=")] + $0 } ?? keyBytes)
    }

    /// `key` alone when `value` is `nil`, else `key=value` with the value's UTF-8 bytes.
    /// - Throws: as ``init(key:value:)-([UInt8]?)``.
    public init(key: String, value: String?) throws(DNSError) {
      try self.init(key: key, value: value.map { Array($0.utf8) })
    }

    private var separator: Int? { bytes.firstIndex(of: UInt8(ascii: "=")) }

    /// The bytes before the first `=` (all of them when there is none). Empty for a string
    /// that starts with `=`, which lookups ignore (RFC 6763 §6.4).
    public var key: [UInt8] { separator.map { Array(bytes[..<$0]) } ?? bytes }

    /// The key as text (invalid UTF-8 repaired).
    public var keyString: String { String(decoding: key, as: UTF8.self) }

    /// The bytes after the first `=`: `nil` for a boolean attribute (`key`), empty for `key=`.
    public var value: [UInt8]? { separator.map { Array(bytes[($0 + 1)...]) } }

    /// The value as text (invalid UTF-8 repaired), `nil` for a boolean attribute.
    public var valueString: String? { value.map { String(decoding: $0, as: UTF8.self) } }

    /// Whether this entry's key is `key`, ignoring ASCII case.
    public func hasKey(_ key: String) -> Bool {
      let wanted = Array(key.utf8)
      return !wanted.isEmpty && DNSName.equalFolded(self.key[...], wanted[...])
    }

    /// The string as text: `key`, `key=` or `key=value`.
    public var description: String { String(decoding: bytes, as: UTF8.self) }
  }

  /// The entries in wire order.
  public var entries: [Entry]

  /// A TXT from entries, in order; none gives the empty TXT.
  public init(_ entries: [Entry] = []) { self.entries = entries }

  /// A TXT from strings taken literally, in order: `["version=1", "paused", "note="]`.
  /// - Throws: ``DNSError/invalidTXTEntry`` for an empty or over-long string.
  public init(strings: [String]) throws(DNSError) {
    var entries: [Entry] = []
    for string in strings { entries.append(try Entry(string)) }
    self.entries = entries
  }

  /// The empty TXT (one zero byte on the wire).
  public static let empty = DNSTXT()

  /// Whether there are no entries.
  public var isEmpty: Bool { entries.isEmpty }

  /// The first entry whose key is `key`, ignoring ASCII case; later duplicates are ignored
  /// (RFC 6763 §6.4).
  public func entry(forKey key: String) -> Entry? { entries.first { $0.hasKey(key) } }

  /// The entries quoted as `avahi-browse -p` shows them: `"version=1" "paused"`.
  public var description: String {
    entries.map { entry in
      var out = "\""
      for character in String(decoding: entry.bytes, as: UTF8.self) {
        if character == "\"" || character == "\\" { out.append("\\") }
        out.append(character)
      }
      return out + "\""
    }.joined(separator: " ")
  }

  /// The rdata: each entry as a length byte and its bytes; one zero byte when empty.
  package var wire: [UInt8] {
    guard !entries.isEmpty else { return [0] }
    var out: [UInt8] = []
    for entry in entries {
      out.append(UInt8(entry.bytes.count))
      out += entry.bytes
    }
    return out
  }

  /// Reads TXT rdata (a slice of the message, so indices are message offsets). Empty strings (a lone zero byte, or stray ones between entries) are
  /// skipped.
  package init(wire rdata: ArraySlice<UInt8>) throws(DNSError) {
    var entries: [Entry] = []
    var index = rdata.startIndex
    while index < rdata.endIndex {
      let length = Int(rdata[index])
      index += 1
      guard length <= rdata.endIndex - index else {
        throw DNSError.malformedRecordData.with(
          "TXT string of \(length) bytes at offset \(index - 1) runs past its record")
      }
      if length > 0 { entries.append(Entry(unchecked: Array(rdata[index..<index + length]))) }
      index += length
    }
    self.entries = entries
  }
}

extension DNSTXT.Entry {
  /// An entry the decoder already knows to hold 1...255 bytes.
  fileprivate init(unchecked bytes: [UInt8]) { self.bytes = bytes }
}
