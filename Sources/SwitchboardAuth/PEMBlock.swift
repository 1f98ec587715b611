/// One PEM block (RFC 7468): the label of its `-----BEGIN label-----` line and the DER bytes
/// its base64 body armours.
///
/// Reading is strict where it matters and lenient where files differ: lines may end in CRLF,
/// the body's lines may have any length, RFC 1421 headers (`Proc-Type`, `DEK-Info`) are
/// skipped, but the `END` label must match and the body must be canonical base64.
struct PEMBlock: Equatable {
  /// The largest PEM text read: 1 MiB, far beyond a key or a certificate chain.
  static let maxTextLength = 1 << 20

  let label: String
  let der: [UInt8]
  /// Whether the block carries RFC 1421's `Proc-Type: 4,ENCRYPTED` (a legacy encrypted key).
  let isEncrypted: Bool

  /// The first block of `text`, past any `EC PARAMETERS` block (`openssl ecparam -genkey`
  /// writes one before the key).
  /// - Throws: ``TokenError/invalidKey`` when there is no block, or it does not decode.
  static func first(in text: some Collection<UInt8>) throws(TokenError) -> PEMBlock {
    guard text.count <= maxTextLength else {
      throw TokenError.invalidKey.with("PEM text over \(maxTextLength) bytes")
    }
    guard let string = String(validating: Array(text), as: UTF8.self) else {
      throw TokenError.invalidKey.with("not a PEM file")
    }
    var label: String?
    var body: [UInt8] = []
    var isEncrypted = false
    for rawLine in string.split(
      omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
    {
      let line = rawLine.trimmingCharacters(" \t\r")
      if let current = label {
        if line.hasPrefix("-----END ") {
          guard line == "-----END \(current)-----" else {
            throw TokenError.invalidKey.with("PEM \(current) ends with another label")
          }
          if current == "EC PARAMETERS" {
            label = nil
            body = []
            continue
          }
          // Standard base64 with padding, read by the strict base64url decoder: the two
          // alphabets differ in two characters, and at most two `=` end the body.
          var unpadded = body[...]
          while unpadded.last == UInt8(ascii: "="), body.count - unpadded.count < 2 {
            unpadded = unpadded.dropLast()
          }
          let base64url = unpadded.map { byte -> UInt8 in
            switch byte {
            case UInt8(ascii: "+"): UInt8(ascii: "-")
            case UInt8(ascii: "/"): UInt8(ascii: "_")
            default: byte
            }
          }
          guard body.count % 4 == 0, let der = Base64URL.decode(base64url), !der.isEmpty else {
            throw TokenError.invalidKey.with("PEM \(current) is not base64")
          }
          return PEMBlock(label: current, der: der, isEncrypted: isEncrypted)
        }
        if line.contains(":") {
          if line.hasPrefix("Proc-Type:") && line.contains("ENCRYPTED") { isEncrypted = true }
          continue
        }
        body += line.utf8
      } else if line.hasPrefix("-----BEGIN "), line.hasSuffix("-----"), line.count > 16 {
        label = String(line.dropFirst(11).dropLast(5))
      }
    }
    throw TokenError.invalidKey.with(label == nil ? "not a PEM file" : "PEM \(label!) has no END line")
  }
}

extension StringProtocol {
  /// Without the given characters at either end.
  fileprivate func trimmingCharacters(_ characters: String) -> Substring {
    let set = Set(characters)
    var text = Substring(self)
    while let first = text.first, set.contains(first) { text = text.dropFirst() }
    while let last = text.last, set.contains(last) { text = text.dropLast() }
    return text
  }
}
