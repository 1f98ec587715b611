extension StringProtocol {
  /// Decodes `%XX` escapes and reads the bytes as UTF-8, leniently, the way browsers read
  /// URLs: a `%` not followed by two hex digits (`%`, `%4`, `%zz`) is kept as it is, and
  /// bytes that are not valid UTF-8 once decoded become U+FFFD. It never fails.
  ///
  /// The one percent-decoder of the package: query parameters, room names in paths, and
  /// the client's endpoint URLs all go through it.
  /// - Parameter plusAsSpace: Read `+` as a space, as form-encoded query strings do
  ///   (`application/x-www-form-urlencoded`); in a path a `+` is itself.
  package func removingURLPercentEncoding(plusAsSpace: Bool = false) -> String {
    let input = utf8
    guard input.contains(where: { $0 == UInt8(ascii: "%") || (plusAsSpace && $0 == UInt8(ascii: "+")) }) else {
      return String(self)
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(input.count)
    var index = input.startIndex
    while index != input.endIndex {
      let byte = input[index]
      input.formIndex(after: &index)
      if byte == UInt8(ascii: "%"), index != input.endIndex, let high = input[index].hexDigitValue {
        let low = input.index(after: index)
        if low != input.endIndex, let lowValue = input[low].hexDigitValue {
          bytes.append(high << 4 | lowValue)
          index = input.index(after: low)
          continue
        }
      }
      bytes.append(plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}

extension UInt8 {
  /// The value of an ASCII hex digit (`0-9`, `a-f`, `A-F`), else `nil`. Unlike
  /// `UInt8(_:radix:)` on a string, a sign (`+f`, `-0`) is not a digit.
  var hexDigitValue: UInt8? {
    switch self {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): self - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): self - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): self - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
