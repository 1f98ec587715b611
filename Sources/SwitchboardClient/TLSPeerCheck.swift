import SwitchboardCrypto
import SwitchboardTLS
import SwitchboardWebSocket

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The decisions about a TLS server that a platform's TLS stack leaves to its caller, made
/// from a ``TLSConfiguration`` the way the OpenSSL transport makes them, for a verify hook
/// (Network.framework's `sec_protocol_options_set_verify_block`) that supplies only the
/// platform's answers: whether the chain evaluated as trusted, and the leaf's DER.
///
/// - ``TLSConfiguration/trustRoots``: ``anchors`` are the certificates to evaluate the chain
///   against instead of the system store (`nil`: the system store).
/// - ``TLSConfiguration/verify``: whether the chain (and name) must be evaluated at all.
/// - ``TLSConfiguration/pinnedSHA256``: the SHA-256 of the leaf's SubjectPublicKeyInfo must
///   be one of them, in addition to the chain (or alone, with `verify` off).
struct TLSPeerCheck: Sendable {
  /// Evaluate the chain and the name.
  let verify: Bool
  /// Accepted SHA-256 hashes of the leaf's SubjectPublicKeyInfo; empty: no pinning.
  let pins: [[UInt8]]
  /// DER certificates trusted instead of the system's store, or `nil` for the system's.
  let anchors: [[UInt8]]?

  /// The checks `configuration` asks for.
  /// - Throws: ``ChatClientError/connectFailed`` when a CA file cannot be read or holds no
  ///   certificate (as the OpenSSL transport refuses it).
  init(_ configuration: TLSConfiguration) throws(ChatClientError) {
    verify = configuration.verify
    pins = configuration.pinnedSHA256
    switch configuration.trustRoots {
    case .system: anchors = nil
    case .caPEM(let pem): anchors = try Self.anchors(pem: pem, from: "the CA PEM text")
    case .caFile(let path):
      guard let pem = Self.readText(path) else { throw .connectFailed("cannot read the CA file \(path)") }
      anchors = try Self.anchors(pem: pem, from: path)
    }
  }

  /// Whether to accept the peer.
  /// - Parameters:
  ///   - chainTrusted: The platform's evaluation of the chain against ``anchors`` and the
  ///     server name; `nil` when it was not run (``verify`` off).
  ///   - leaf: The leaf certificate's DER, `nil` when the peer sent none.
  /// - Returns: `nil` to accept, else why not (for the connect error).
  func refusal(chainTrusted: Bool?, leaf: [UInt8]?) -> String? {
    if verify && chainTrusted != true { return "the server's certificate is not trusted" }
    guard !pins.isEmpty else { return nil }
    guard let leaf, let pin = Self.publicKeySHA256(certificate: leaf) else {
      return "the server sent no certificate whose public key could be pinned"
    }
    guard pins.contains(pin) else {
      return "the leaf's public key SHA-256 is \(pin.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()), which is not pinned"
    }
    return nil
  }

  /// The pin of a certificate (DER): the SHA-256 of its SubjectPublicKeyInfo, as
  /// ``TLSConfiguration/pinnedSHA256`` holds them; `nil` when it is not a certificate.
  static func publicKeySHA256(certificate der: [UInt8]) -> [UInt8]? {
    guard let info = try? DERReader.subjectPublicKeyInfo(ofCertificate: der) else { return nil }
    return SHA256.hash(info)
  }

  /// The DER of each `CERTIFICATE` block of PEM text (RFC 7468), in order; blocks of other
  /// labels are skipped, and so is a block whose body is not base64.
  static func certificates(pem: String) -> [[UInt8]] {
    var found: [[UInt8]] = []
    var body: String?
    for raw in pem.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
      let line = String(raw).trimmingWhitespace
      if line == "-----BEGIN CERTIFICATE-----" {
        body = ""
      } else if line == "-----END CERTIFICATE-----" {
        if let text = body, let der = Base64.decode(text), !der.isEmpty { found.append(der) }
        body = nil
      } else if body != nil {
        body! += line
      }
    }
    return found
  }

  private static func anchors(pem: String, from source: String) throws(ChatClientError) -> [[UInt8]] {
    let certificates = certificates(pem: pem)
    guard !certificates.isEmpty else { throw .connectFailed("no certificate in \(source)") }
    return certificates
  }

  /// The file at `path` as UTF-8 text (with invalid bytes replaced), at most 1 MiB; `nil`
  /// when it cannot be read.
  private static func readText(_ path: String) -> String? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 16 << 10)
    while bytes.count < 1 << 20 {
      let count = fread(&chunk, 1, chunk.count, file)
      if count == 0 { break }
      bytes += chunk[..<count]
    }
    return ferror(file) == 0 ? String(decoding: bytes, as: UTF8.self) : nil
  }
}
