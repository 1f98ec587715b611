import SwitchboardTestSupport
import Testing

@testable import SwitchboardAuth

/// The portable half of keys: PEM armour, the DER structures (SubjectPublicKeyInfo,
/// certificates, PKCS#8, PKCS#1, SEC1) and the checks, on keys the `openssl` CLI made. No
/// crypto library is involved, so these run in every build, the one without OpenSSL too.
@Suite(.enabled(ifAvailable: TestKeys.shared != nil, "needs the openssl CLI"), .onTestThreads)
struct TokenKeyMaterialTests {
  let keys = TestKeys.shared!

  @Test func everyFormOfAKeyReadsAsTheSameKey() throws {
    guard case .rsaPublic(let rsaPKCS1, let bits) = try TokenKeyMaterial(pem: keys.rsaPublic) else {
      Issue.record("RSA public key read as something else")
      return
    }
    #expect(bits == 2048)
    #expect(try TokenKeyMaterial(pem: keys.rsaCertificate) == .rsaPublic(pkcs1: rsaPKCS1, bits: 2048))
    let rsaPrivate = try TokenKeyMaterial(pem: keys.rsaPrivate)
    #expect(rsaPrivate.isPrivate && rsaPrivate.algorithm == .rs256)
    #expect(try TokenKeyMaterial(pem: keys.rsaTraditional) == rsaPrivate)

    guard case .ecPublic(let point) = try TokenKeyMaterial(pem: keys.ecPublic) else {
      Issue.record("EC public key read as something else")
      return
    }
    #expect(point.count == 65 && point.first == 0x04)
    #expect(try TokenKeyMaterial(pem: keys.ecCertificate) == .ecPublic(x963: point))
    guard case .ecPrivate(let scalar) = try TokenKeyMaterial(pem: keys.ecPrivate) else {
      Issue.record("EC private key read as something else")
      return
    }
    #expect(scalar.count == 32)
    #expect(try TokenKeyMaterial(pem: keys.ecSEC1) == .ecPrivate(scalar: scalar))
    #expect(try TokenKeyMaterial(pem: keys.ecWithParameters).algorithm == .es256)
    #expect(try TokenKeyMaterial(pem: keys.otherECPrivate) != .ecPrivate(scalar: scalar))
  }

  @Test func unusableKeysAreRefusedWithTheReason() {
    for (pem, reason) in [
      (keys.rsa1024Private, "1024 bits"), (keys.p384Private, "P-256"),
      (keys.ed25519Private, "neither RSA nor EC"),
      (keys.encryptedECPrivate, "encrypted"), (Array("hello".utf8), "not a PEM file"),
      (Array("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n".utf8), "does not parse"),
      (Array("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8), "another label"),
      (Array("-----BEGIN PUBLIC KEY-----\nA=AA\n-----END PUBLIC KEY-----\n".utf8), "not base64"),
      (Array("-----BEGIN PUBLIC KEY-----\nAAAA\n".utf8), "no END line"),
      (
        Array("-----BEGIN DH PARAMETERS-----\nAAAA\n-----END DH PARAMETERS-----\n".utf8),
        "is not a public key"
      ),
    ] {
      #expect {
        try TokenKeyMaterial(pem: pem)
      } throws: { error in
        (error as? TokenError) == .invalidKey && (error as? TokenError)?.detail.contains(reason) == true
      }
    }
  }

  @Test func crlfLinesAndLongBodyLinesAreRead() throws {
    let text = String(decoding: keys.ecPublic, as: UTF8.self)
    let body = text.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
    let oneLine = "-----BEGIN PUBLIC KEY-----\r\n\(body)\r\n-----END PUBLIC KEY-----\r\n"
    #expect(try TokenKeyMaterial(pem: Array(oneLine.utf8)) == TokenKeyMaterial(pem: keys.ecPublic))
  }

  /// A decoder of untrusted bytes: every truncation and many mutations of real keys either
  /// read as a key or are refused with ``TokenError/invalidKey``; nothing traps.
  @Test func truncatedAndMutatedKeysAreRefusedOrRead() throws {
    var random = SeededGenerator(seed: 0xDE4)
    for pem in [
      keys.rsaPublic, keys.ecPublic, keys.ecPrivate, keys.rsaPrivate, keys.ecCertificate, keys.ecSEC1,
    ] {
      let block = try PEMBlock.first(in: pem)
      var variants: [[UInt8]] = (0..<block.der.count).filter { $0 % 7 == 0 }.map { Array(block.der[..<$0]) }
      for _ in 0..<150 {
        var der = block.der
        for _ in 0..<Int.random(in: 1...3, using: &random) {
          der[Int.random(in: 0..<der.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
        }
        variants.append(der)
      }
      for der in variants {
        let armoured =
          "-----BEGIN \(block.label)-----\n" + standardBase64(der) + "\n-----END \(block.label)-----\n"
        do {
          _ = try TokenKeyMaterial(pem: Array(armoured.utf8))
        } catch {
          #expect(error == .invalidKey)
        }
      }
    }
  }

  @Test func es256SignaturesConvertBetweenRawAndDER() throws {
    var random = SeededGenerator(seed: 257)
    for _ in 0..<200 {
      var raw = (0..<64).map { _ in UInt8.random(in: 0...255, using: &random) }
      if Bool.random(using: &random) { raw[0] &= 0x7F }
      if Bool.random(using: &random) { raw[32] = 0 }
      let der = try #require(ECDSASignature.der(fromRaw: raw))
      #expect(ECDSASignature.raw(fromDER: der) == raw)
    }
    // r = 1, s = 0x80 (a sign byte needed).
    #expect(
      ECDSASignature.der(
        fromRaw: [UInt8](repeating: 0, count: 31) + [1] + [UInt8](repeating: 0, count: 31) + [0x80])
        == [0x30, 0x07, 0x02, 0x01, 0x01, 0x02, 0x02, 0x00, 0x80])
    #expect(ECDSASignature.der(fromRaw: Array(repeating: 1, count: 63)) == nil)
    #expect(ECDSASignature.raw(fromDER: [0x30, 0x03, 0x02, 0x01]) == nil)
    // A component over 32 bytes, a negative one, trailing bytes.
    #expect(
      ECDSASignature.raw(
        fromDER: [0x30, 0x26, 0x02, 0x21, 0x01] + [UInt8](repeating: 0, count: 32) + [0x02, 0x01, 0x01])
        == nil)
    #expect(ECDSASignature.raw(fromDER: [0x30, 0x06, 0x02, 0x01, 0x81, 0x02, 0x01, 0x01]) == nil)
    #expect(ECDSASignature.raw(fromDER: [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01, 0x00]) == nil)
  }
}

/// Standard base64 with padding, as PEM bodies are written (64 characters a line).
func standardBase64(_ bytes: [UInt8]) -> String {
  var text = Base64URL.encode(bytes).replacingCharacters()
  while text.count % 4 != 0 { text += "=" }
  var lines: [Substring] = []
  var rest = Substring(text)
  while !rest.isEmpty {
    lines.append(rest.prefix(64))
    rest = rest.dropFirst(64)
  }
  return lines.joined(separator: "\n")
}

extension String {
  fileprivate func replacingCharacters() -> String {
    String(map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
  }
}
