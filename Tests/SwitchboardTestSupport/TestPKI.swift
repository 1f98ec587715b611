import Foundation

/// A throwaway PKI made with the `openssl` CLI in a temporary directory: a test CA, a
/// server certificate it signed for `localhost` and `127.0.0.1`, and a self-signed
/// certificate for the same names (P-256 keys). None of it is our code, so a TLS peer
/// that trusts it checks our TLS for real. ``remove()`` deletes it all.
public final class TestPKI: Sendable {
  public let directory: URL

  public init() throws {
    directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("switchboard-pki-\(getpid())-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    do {
      let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
      try openssl(
        ["req", "-x509"] + ec + [
          "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Switchboard Test CA",
          "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
      try openssl(
        ["req", "-new"] + ec + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"])
      try """
      subjectAltName=DNS:localhost,IP:127.0.0.1
      basicConstraints=CA:FALSE
      keyUsage=critical,digitalSignature
      extendedKeyUsage=serverAuth

      """.write(to: directory.appendingPathComponent("server.ext"), atomically: true, encoding: .utf8)
      try openssl([
        "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", "2",
        "-days", "2", "-extfile", "server.ext", "-out", "server.pem",
      ])
      try openssl(
        ["req", "-x509"] + ec + [
          "-keyout", "self.key", "-out", "self.pem", "-days", "2", "-subj", "/CN=localhost",
          "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ])
    } catch {
      remove()
      throw error
    }
  }

  /// The path of `name` in the directory.
  public func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
  public var caFile: String { path("ca.pem") }
  public var serverCertificate: String { path("server.pem") }
  public var serverKey: String { path("server.key") }
  public var selfSignedCertificate: String { path("self.pem") }
  public var selfSignedKey: String { path("self.key") }

  /// The SHA-256 pin of a certificate's SubjectPublicKeyInfo, computed by the `openssl`
  /// CLI (independently of the code under test).
  public func publicKeyPin(ofCertificate name: String) throws -> [UInt8] {
    try openssl(["x509", "-in", name, "-pubkey", "-noout", "-out", "\(name).pub"])
    try openssl(["pkey", "-pubin", "-in", "\(name).pub", "-outform", "DER", "-out", "\(name).der"])
    try openssl(["dgst", "-sha256", "-binary", "-out", "\(name).pin", "\(name).der"])
    return Array(try Data(contentsOf: directory.appendingPathComponent("\(name).pin")))
  }

  public func remove() {
    try? FileManager.default.removeItem(at: directory)
  }

  /// Whether the `openssl` CLI runs (the suites that need it are skipped otherwise).
  public static let hasOpenSSL: Bool = commandSucceeds(["openssl", "version"])

  private func openssl(_ arguments: [String]) throws {
    try runTool(["openssl"] + arguments, in: directory)
  }
}
