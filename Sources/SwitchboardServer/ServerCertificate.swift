/// One certificate the TLS listeners present: a PEM chain (the server's certificate
/// first, then intermediates) and its unencrypted PEM private key (`--tls-cert`,
/// `--tls-key`). With several, the first is the default and the others are chosen by
/// the name a client asks for (SNI); see docs/TLS.md.
public struct ServerCertificate: Sendable, Equatable {
  /// The PEM certificate chain file.
  public var certificateFile: String
  /// The PEM private key file of the chain's first certificate.
  public var keyFile: String

  /// A certificate and key given by path; the files are read when the server is made
  /// and again on every ``ChatServer/reloadTLS()``.
  public init(certificateFile: String, keyFile: String) {
    self.certificateFile = certificateFile
    self.keyFile = keyFile
  }
}
