/// How a TLS client decides whom to trust. Build a ``TLSContext`` from it once and share
/// the context between connections; ``TLSConnection/connect(to:serverName:configuration:on:completion:)``
/// builds one per call for convenience.
///
/// By default the peer's chain must lead to a root in the system's trust store and its
/// certificate must name the server (``serverName``, or the name given to `connect`).
public struct TLSConfiguration: Sendable {
  /// Where trusted root certificates come from.
  public enum TrustRoots: Sendable, Equatable {
    /// The system's default store (`SSL_CTX_set_default_verify_paths`: OpenSSL's
    /// configured CA file and directory, on Debian `/etc/ssl/certs`).
    case system
    /// Only the certificates in this PEM file (a private CA, a test CA).
    case caFile(String)
    /// Only the certificates in this PEM text.
    case caPEM(String)
  }

  /// Where trusted roots come from; `.system` by default.
  public var trustRoots: TrustRoots
  /// The name the server must prove: sent as SNI and checked against the certificate's
  /// subjectAltName (a DNS name, or an IP address literal such as `"127.0.0.1"`, which is
  /// matched against IP entries and not sent as SNI). `connect` may override it per
  /// connection. With ``verify`` on, a name is required.
  public var serverName: String?
  /// Accepted SHA-256 hashes of the leaf certificate's **SubjectPublicKeyInfo** (DER), the
  /// pin format of HPKP and of `openssl x509 -pubkey | openssl pkey -pubin -outform DER |
  /// openssl dgst -sha256`; a pin on the key survives certificate renewal with the same key.
  /// Empty (the default) means no pinning. Pins are checked in addition to chain
  /// verification; with ``verify`` off they are the only check.
  public var pinnedSHA256: [[UInt8]]
  /// The oldest protocol version accepted; TLS 1.2 by default (and at the least).
  public var minimumVersion: TLSVersion
  /// ALPN protocol names offered, most preferred first (e.g. `["http/1.1"]`); empty
  /// sends no ALPN extension.
  public var applicationProtocols: [String]
  /// Whether to verify the peer's chain and name. **Turning this off is unsafe**: anyone
  /// on the path can impersonate the server. Meant for tests, or together with
  /// ``pinnedSHA256`` for self-signed servers.
  public var verify: Bool

  /// A client configuration; every parameter has the safe default.
  public init(
    trustRoots: TrustRoots = .system, serverName: String? = nil, pinnedSHA256: [[UInt8]] = [],
    minimumVersion: TLSVersion = .tls12, applicationProtocols: [String] = [], verify: Bool = true
  ) {
    self.trustRoots = trustRoots
    self.serverName = serverName
    self.pinnedSHA256 = pinnedSHA256
    self.minimumVersion = minimumVersion
    self.applicationProtocols = applicationProtocols
    self.verify = verify
  }
}

/// ALPN's wire format: each name prefixed by its length.
func alpnWireFormat(_ protocols: [String]) throws(TLSError) -> [UInt8] {
  var wire: [UInt8] = []
  for name in protocols {
    let bytes = Array(name.utf8)
    guard !bytes.isEmpty, bytes.count <= 255 else {
      throw .invalidConfiguration("ALPN protocol name must be 1…255 bytes: \"\(name)\"")
    }
    wire.append(UInt8(bytes.count))
    wire += bytes
  }
  return wire
}
