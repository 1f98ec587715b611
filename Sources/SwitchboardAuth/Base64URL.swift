/// Base64url without padding (RFC 4648 §5, as JWS uses it, RFC 7515 §2), strict both ways.
///
/// Decoding refuses what an encoder never writes, so each byte string has exactly one
/// encoding and a token cannot be altered without changing its signing input: characters
/// outside `A–Z a–z 0–9 - _`, padding `=`, whitespace, a length of 4n+1 characters, and
/// trailing bits that are not zero (`QR` and `QQ` would both decode to the byte 0x41).
public enum Base64URL {
  private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

  /// The 6-bit value of every byte, or 0xFF for bytes outside the alphabet.
  private static let values: [UInt8] = {
    var table = [UInt8](repeating: 0xFF, count: 256)
    for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
    return table
  }()

  /// Encodes `bytes` without padding.
  public static func encode(_ bytes: some Collection<UInt8>) -> String {
    let input = Array(bytes)
    var out: [UInt8] = []
    out.reserveCapacity((input.count * 4 + 2) / 3)
    var index = 0
    while index + 3 <= input.count {
      let n = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
      out += [
        alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)],
        alphabet[Int(n & 63)],
      ]
      index += 3
    }
    switch input.count - index {
    case 1:
      let n = UInt32(input[index]) << 16
      out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)]]
    case 2:
      let n = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
      out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)]]
    default:
      break
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// Decodes strict unpadded base64url, or returns `nil` (see the type's rules).
  public static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
    let input = Array(text)
    guard input.count % 4 != 1 else { return nil }
    var out: [UInt8] = []
    out.reserveCapacity(input.count * 3 / 4)
    var accumulator: UInt32 = 0
    var bits = 0
    for byte in input {
      let value = values[Int(byte)]
      guard value != 0xFF else { return nil }
      accumulator = accumulator << 6 | UInt32(value)
      bits += 6
      if bits >= 8 {
        bits -= 8
        out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
        accumulator &= (1 << UInt32(bits)) - 1
      }
    }
    // Left-over bits (2 or 4) must be zero: a canonical encoder never sets them.
    guard accumulator == 0 else { return nil }
    return out
  }

  /// Decodes a string; see ``decode(_:)-(some Collection<UInt8>)``.
  public static func decode(_ text: String) -> [UInt8]? { decode(text.utf8) }
}
