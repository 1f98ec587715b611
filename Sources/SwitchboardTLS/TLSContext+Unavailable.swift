#if !canImport(COpenSSL)
  import SwitchboardIO

  /// ``TLSContext`` where this build has no TLS (Apple platforms, and Linux built with
  /// `SWITCHBOARD_WITHOUT_OPENSSL=1`): the same API, and every initialiser throws
  /// ``TLSError/unavailable`` naming the platform, so callers build everywhere and refuse at
  /// run time. No instance can exist.
  public final class TLSContext: Sendable {
    /// Never evaluated: every initialiser throws, so no instance exists to reach it.
    private var impossible: Never { fatalError("no TLSContext exists in a build without its library") }

    /// `true` for a server context; never read, since no context is ever made here.
    public var isServer: Bool { impossible }

    /// Throws ``TLSError/unavailable``.
    public init(configuration: TLSConfiguration) throws(TLSError) {
      throw .unavailable(on: BuildPlatform.name)
    }

    /// Throws ``TLSError/unavailable``.
    public init(serverConfiguration configuration: TLSServerConfiguration) throws(TLSError) {
      throw .unavailable(on: BuildPlatform.name)
    }

    /// Throws ``TLSError/unavailable``.
    public init(serverIdentities identities: [TLSServerConfiguration]) throws(TLSError) {
      throw .unavailable(on: BuildPlatform.name)
    }

    /// Always `nil`: there is no certificate.
    public var certificateSummary: String? { impossible }
  }

  extension TLSConfiguration {
    /// Throws ``TLSError/unavailable``: reading certificates needs the TLS library.
    public static func publicKeySHA256(certificatePEM pem: String) throws(TLSError) -> [UInt8] {
      throw .unavailable(on: BuildPlatform.name)
    }
  }
#endif
