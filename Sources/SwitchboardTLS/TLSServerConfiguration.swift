/// A TLS server's identity: its certificate chain and private key, as PEM files (the
/// shape of a future `--tls-cert`/`--tls-key`).
public struct TLSServerConfiguration: Sendable {
  /// PEM file with the server certificate first, then any intermediates.
  public var certificateChainPEMFile: String
  /// PEM file with the private key of the first certificate (unencrypted).
  public var privateKeyPEMFile: String
  /// The oldest protocol version accepted; TLS 1.2 by default (and at the least).
  public var minimumVersion: TLSVersion
  /// ALPN protocols the server speaks, most preferred first. When the client offers ALPN
  /// and none matches, the extension is left out rather than failing the handshake.
  public var applicationProtocols: [String]

  /// A server configuration from PEM files; they are read when a ``TLSContext`` is made.
  public init(
    certificateChainPEMFile: String, privateKeyPEMFile: String, minimumVersion: TLSVersion = .tls12,
    applicationProtocols: [String] = []
  ) {
    self.certificateChainPEMFile = certificateChainPEMFile
    self.privateKeyPEMFile = privateKeyPEMFile
    self.minimumVersion = minimumVersion
    self.applicationProtocols = applicationProtocols
  }
}
