import Foundation
import SwitchboardAuth
import SwitchboardTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// 2026-01-01T00:00:00Z: the moment most tests verify at.
let testNow: Int64 = 1_767_225_600
/// A 32-byte test secret (the shortest accepted).
let testSecret = Array("0123456789abcdef0123456789abcdef".utf8)

/// Keys made once per test process with the `openssl` CLI (never committed): two of each
/// kind, so "signed by another key of the same type" can be tested, plus keys that must be
/// refused. The PEM texts are kept in memory; the directory they were made in is removed.
struct TestKeys: Sendable {
  let rsaPrivate: [UInt8]
  let rsaPublic: [UInt8]
  let otherRSAPrivate: [UInt8]
  let otherRSAPublic: [UInt8]
  let ecPrivate: [UInt8]
  let ecPublic: [UInt8]
  let otherECPrivate: [UInt8]
  let otherECPublic: [UInt8]
  let rsa1024Private: [UInt8]
  let p384Private: [UInt8]
  let ed25519Private: [UInt8]
  let encryptedECPrivate: [UInt8]
  let ecCertificate: [UInt8]
  /// `openssl ecparam -genkey` output: an `EC PARAMETERS` block before the key.
  let ecWithParameters: [UInt8]
  /// The RSA key as PKCS#1 (`RSA PRIVATE KEY`), the EC key as SEC1 (`EC PRIVATE KEY`).
  let rsaTraditional: [UInt8]
  let ecSEC1: [UInt8]
  /// A self-signed certificate for the RSA key.
  let rsaCertificate: [UInt8]

  /// Made on first use; `nil` (and the suites that need it skipped) without the `openssl` CLI.
  static let shared: TestKeys? = try? TestKeys()

  private init() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("switchboard-auth-keys-\(getpid())-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    func openssl(_ arguments: [String]) throws { try runTool(["openssl"] + arguments, in: directory) }
    func read(_ name: String) throws -> [UInt8] {
      Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }
    let rsa = ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out"]
    let p256 = ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out"]
    try openssl(rsa + ["rsa.key"])
    try openssl(rsa + ["rsa2.key"])
    try openssl(p256 + ["ec.key"])
    try openssl(p256 + ["ec2.key"])
    try openssl(["pkey", "-in", "rsa.key", "-pubout", "-out", "rsa.pub"])
    try openssl(["pkey", "-in", "ec.key", "-pubout", "-out", "ec.pub"])
    try openssl(["pkey", "-in", "rsa2.key", "-pubout", "-out", "rsa2.pub"])
    try openssl(["pkey", "-in", "ec2.key", "-pubout", "-out", "ec2.pub"])
    try openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024", "-out", "rsa1024.key"])
    try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", "p384.key"])
    try openssl(["genpkey", "-algorithm", "ED25519", "-out", "ed25519.key"])
    try openssl(["ecparam", "-name", "prime256v1", "-genkey", "-out", "ecparam.key"])
    try openssl(["pkey", "-in", "ec.key", "-aes256", "-passout", "pass:test", "-out", "ec.enc"])
    try openssl(["req", "-x509", "-key", "ec.key", "-out", "ec.crt", "-days", "2", "-subj", "/CN=token test"])
    try openssl(["req", "-x509", "-key", "rsa.key", "-out", "rsa.crt", "-days", "2", "-subj", "/CN=token test"])
    try openssl(["rsa", "-in", "rsa.key", "-traditional", "-out", "rsa.pkcs1"])
    try openssl(["ec", "-in", "ec.key", "-out", "ec.sec1"])
    rsaPrivate = try read("rsa.key")
    rsaPublic = try read("rsa.pub")
    otherRSAPrivate = try read("rsa2.key")
    otherRSAPublic = try read("rsa2.pub")
    ecPrivate = try read("ec.key")
    ecPublic = try read("ec.pub")
    otherECPrivate = try read("ec2.key")
    otherECPublic = try read("ec2.pub")
    rsa1024Private = try read("rsa1024.key")
    p384Private = try read("p384.key")
    ed25519Private = try read("ed25519.key")
    encryptedECPrivate = try read("ec.enc")
    ecCertificate = try read("ec.crt")
    ecWithParameters = try read("ecparam.key")
    rsaTraditional = try read("rsa.pkcs1")
    ecSEC1 = try read("ec.sec1")
    rsaCertificate = try read("rsa.crt")
  }
}

/// A temporary directory for one test's files (keys handed to PyJWT or the CLI), removed by ``remove()``.
final class ScratchDirectory: Sendable {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("switchboard-auth-\(getpid())-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  /// Writes `bytes` to `name` and returns its path.
  @discardableResult
  func write(_ name: String, _ bytes: [UInt8]) throws -> String {
    let path = url.appendingPathComponent(name).path
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
  }

  func remove() { try? FileManager.default.removeItem(at: url) }
}

/// Where the repository (and its scripts) and the built `switchboard` binary are.
enum AuthTestEnvironment {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  static var binary: String? { Executables.switchboard }

  static let pyjwtPeer = root.appendingPathComponent("scripts/security/pyjwt-peer.py").path

  /// Whether python3 with PyJWT and cryptography is here (scripts/install-test-peers.sh installs them).
  static let hasPyJWT: Bool = commandSucceeds(["python3", "-c", "import jwt, cryptography"])
}

/// PyJWT through `scripts/security/pyjwt-peer.py`: a batch of jobs in one python start.
enum PyJWT {
  enum Job {
    case mint(alg: String, key: String, claims: String, headers: String? = nil)
    case verify(alg: String, key: String, token: String, leeway: Int = 0)
  }

  static func run(_ jobs: [Job], in scratch: ScratchDirectory) throws -> [String] {
    let objects: [[String: Any]] = jobs.map { job in
      switch job {
      case .mint(let alg, let key, let claims, let headers):
        var object: [String: Any] = [
          "op": "mint", "alg": alg, "key": key,
          "claims": try! JSONSerialization.jsonObject(with: Data(claims.utf8)),
        ]
        if let headers { object["headers"] = try! JSONSerialization.jsonObject(with: Data(headers.utf8)) }
        return object
      case .verify(let alg, let key, let token, let leeway):
        return ["op": "verify", "alg": alg, "key": key, "token": token, "leeway": leeway]
      }
    }
    let file = try scratch.write(
      "jobs-\(UUID().uuidString).json", Array(try JSONSerialization.data(withJSONObject: objects)))
    let output = try runTool(
      ["python3", AuthTestEnvironment.pyjwtPeer, "batch", file], timeout: .seconds(60))
    guard let results = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String],
      results.count == jobs.count
    else { throw TestFailure("pyjwt-peer.py answered \(output)") }
    return results
  }
}
