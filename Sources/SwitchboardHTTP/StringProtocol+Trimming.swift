extension StringProtocol {
  /// The text without leading and trailing spaces and tabs: HTTP's optional whitespace
  /// (`OWS`, RFC 9110 §5.6.3) around header values and list items, and what the chat
  /// trims around names and command arguments. Other whitespace (newlines, U+00A0, …)
  /// is kept.
  ///
  /// The one trimmer of the package, for text; the byte form below does the same to raw
  /// header bytes.
  package func trimmingSpacesAndTabs() -> Substring {
    let text = Substring(self)
    return Substring(text.utf8.trimmingSpacesAndTabs())
  }
}

extension BidirectionalCollection where Element == UInt8 {
  /// The bytes without leading and trailing spaces and tabs (see
  /// ``Swift/StringProtocol/trimmingSpacesAndTabs()``).
  package func trimmingSpacesAndTabs() -> SubSequence {
    var start = startIndex
    var end = endIndex
    while start != end, self[start].isSpaceOrTab { formIndex(after: &start) }
    while start != end, self[index(before: end)].isSpaceOrTab { formIndex(before: &end) }
    return self[start..<end]
  }
}

extension UInt8 {
  /// A space or a horizontal tab: HTTP's whitespace.
  var isSpaceOrTab: Bool { self == UInt8(ascii: " ") || self == UInt8(ascii: "\t") }
}
