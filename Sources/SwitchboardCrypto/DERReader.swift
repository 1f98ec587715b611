/// A reader of DER (X.690) for the few structures keys come in: SubjectPublicKeyInfo,
/// certificates, PKCS#1, PKCS#8 and SEC1 keys, and ECDSA signatures. Shared by the package's
/// modules (`package`): the token keys (SwitchboardAuth) and the client's TLS pins.
///
/// A decoder of untrusted bytes, so a pure value type with limits: definite lengths only
/// (DER has no others), lengths of at most ``maxLengthBytes`` bytes that must fit in what is
/// left, tags of one byte. It never recurses (the caller walks into a constructed element by
/// making a reader of its contents), never allocates beyond slices, and throws ``DERError``
/// for anything else.
package struct DERReader {
  /// Bytes of a long-form length: 4 (elements up to 4 GiB, far beyond any key).
  package static let maxLengthBytes = 4

  /// One element: its tag byte, its contents, and the whole of it (tag, length, contents).
  package struct Element {
    package let tag: UInt8
    package let contents: ArraySlice<UInt8>
    package let encoded: ArraySlice<UInt8>

    /// A reader of the contents (for a constructed element: SEQUENCE, a context tag).
    package var reader: DERReader { DERReader(contents) }
  }

  /// Tags this module reads.
  package enum Tag {
    package static let integer: UInt8 = 0x02
    package static let bitString: UInt8 = 0x03
    package static let octetString: UInt8 = 0x04
    package static let null: UInt8 = 0x05
    package static let objectIdentifier: UInt8 = 0x06
    package static let sequence: UInt8 = 0x30
    /// `[n]` explicit, constructed (certificate version, SEC1 parameters and public key).
    package static func context(_ n: UInt8) -> UInt8 { 0xA0 | n }
  }

  private var rest: ArraySlice<UInt8>

  /// A reader of `bytes`.
  package init(_ bytes: ArraySlice<UInt8>) { rest = bytes }

  /// A reader of `bytes`.
  package init(_ bytes: [UInt8]) { rest = bytes[...] }

  /// `true` when every element was read.
  package var isAtEnd: Bool { rest.isEmpty }

  /// The tag of the next element, if any, without reading it.
  package var nextTag: UInt8? { rest.first }

  /// The next element, whatever its tag.
  package mutating func read() throws(DERError) -> Element {
    guard let tag = rest.first else { throw DERError("truncated: an element expected") }
    guard tag & 0x1F != 0x1F else { throw DERError("multi-byte tags are not used in keys") }
    var index = rest.index(after: rest.startIndex)
    guard index < rest.endIndex else { throw DERError("truncated: no length") }
    let first = rest[index]
    index += 1
    var length = 0
    if first < 0x80 {
      length = Int(first)
    } else {
      let count = Int(first & 0x7F)
      guard count >= 1, count <= Self.maxLengthBytes else { throw DERError("length of \(count) bytes") }
      guard rest.endIndex - index >= count else { throw DERError("truncated: length") }
      for byte in rest[index..<(index + count)] { length = length << 8 | Int(byte) }
      index += count
      // DER: the shortest form, so no leading zero and no long form under 128.
      guard rest[index - count] != 0, length >= 0x80 else {
        throw DERError("length not in its shortest form")
      }
    }
    guard rest.endIndex - index >= length else { throw DERError("truncated: \(length) bytes of contents") }
    let element = Element(
      tag: tag, contents: rest[index..<(index + length)], encoded: rest[rest.startIndex..<(index + length)])
    rest = rest[(index + length)...]
    return element
  }

  /// The next element, which must have tag `tag`.
  package mutating func read(_ tag: UInt8) throws(DERError) -> Element {
    let element = try read()
    guard element.tag == tag else {
      throw DERError("tag \(hexByte(element.tag)) where \(hexByte(tag)) belongs")
    }
    return element
  }

  /// The next element if it has tag `tag`, else `nil` (and nothing is read): an OPTIONAL field.
  package mutating func readIfPresent(_ tag: UInt8) throws(DERError) -> Element? {
    nextTag == tag ? try read(tag) : nil
  }

  /// A SEQUENCE's contents as a reader.
  package mutating func readSequence() throws(DERError) -> DERReader { try read(Tag.sequence).reader }

  /// An INTEGER's magnitude: big-endian, without the sign byte. Negative integers (never
  /// valid in a key or a signature) and non-minimal encodings are refused.
  package mutating func readUnsignedInteger() throws(DERError) -> ArraySlice<UInt8> {
    let bytes = try read(Tag.integer).contents
    guard let first = bytes.first else { throw DERError("empty INTEGER") }
    guard first & 0x80 == 0 else { throw DERError("negative INTEGER") }
    if first == 0, bytes.count > 1 {
      guard bytes[bytes.startIndex + 1] & 0x80 != 0 else { throw DERError("INTEGER not minimal") }
      return bytes.dropFirst()
    }
    return bytes
  }

  /// A small INTEGER (a version field).
  package mutating func readSmallInteger() throws(DERError) -> Int {
    let magnitude = try readUnsignedInteger()
    guard magnitude.count <= 2 else { throw DERError("INTEGER too large for a version") }
    return magnitude.reduce(0) { $0 << 8 | Int($1) }
  }

  /// A BIT STRING's bytes; only whole bytes (no unused bits), as keys use.
  package mutating func readBitString() throws(DERError) -> ArraySlice<UInt8> {
    let contents = try read(Tag.bitString).contents
    guard contents.first == 0 else { throw DERError("BIT STRING with unused bits") }
    return contents.dropFirst()
  }

  /// An OBJECT IDENTIFIER's encoded bytes (compared with the constants in ``DERObjectID``).
  package mutating func readObjectIdentifier() throws(DERError) -> ArraySlice<UInt8> {
    let contents = try read(Tag.objectIdentifier).contents
    guard !contents.isEmpty else { throw DERError("empty OBJECT IDENTIFIER") }
    return contents
  }

  /// The SubjectPublicKeyInfo (its whole encoding) of an X.509 certificate:
  /// Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signature }, and in
  /// tbsCertificate the SubjectPublicKeyInfo after version, serial, signature, issuer,
  /// validity and subject.
  package static func subjectPublicKeyInfo(ofCertificate der: [UInt8]) throws(DERError) -> ArraySlice<UInt8> {
    var outer = DERReader(der)
    var certificate = try outer.readSequence()
    var tbs = try certificate.readSequence()
    _ = try tbs.readIfPresent(Tag.context(0))  // version
    _ = try tbs.read(Tag.integer)  // serial number
    for _ in 0..<4 { _ = try tbs.read(Tag.sequence) }  // signature, issuer, validity, subject
    return try tbs.read(Tag.sequence).encoded
  }

  /// Throws unless every element was read: trailing bytes are refused.
  package func expectEnd() throws(DERError) {
    guard isAtEnd else { throw DERError("\(rest.count) bytes after the last element") }
  }
}

/// The object identifiers keys carry, in their encoded form.
package enum DERObjectID {
  /// rsaEncryption, 1.2.840.113549.1.1.1.
  package static let rsaEncryption: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
  /// id-ecPublicKey, 1.2.840.10045.2.1.
  package static let ecPublicKey: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
  /// prime256v1 (P-256, secp256r1), 1.2.840.10045.3.1.7.
  package static let prime256v1: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]
}

/// Why DER bytes were refused: what was expected and what was found.
package struct DERError: Error, Equatable, CustomStringConvertible {
  package let reason: String
  package init(_ reason: String) { self.reason = reason }
  package var description: String { "DER: " + reason }
}

private func hexByte(_ byte: UInt8) -> String {
  "0x" + (byte < 16 ? "0" : "") + String(byte, radix: 16)
}
