import SwitchboardIO
import SwitchboardLog
import SwitchboardServer

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `serve`'s TLS flags (`--tls-cert`, `--tls-key`, `--https-port`, `--tls-port`,
/// `--tls-handshake-timeout`), the SIGHUP reload and the banner's TLS URLs.
enum ServeTLSOptions {
  static let valued: Set<String> = ["tls-cert", "tls-key", "https-port", "tls-port", "tls-handshake-timeout"]

  /// The lines of `serve --help` about TLS.
  static let help = """
      --tls-cert PEM            certificate chain (server certificate first) for the TLS
                                listeners; repeat with --tls-key for more names: the first
                                pair is the default, the others are chosen by SNI (Linux
                                builds; on macOS and iOS TLS is not built yet and serve
                                refuses it at startup)
      --tls-key PEM             the unencrypted private key of the --tls-cert before it
      --https-port N            HTTPS + WSS port, with --tls-cert (default 1443; 0 turns it off;
                                any: the kernel picks one)
      --tls-port N              tls:// line chat port, with --tls-cert (default 8443; 0 off; any)
      --tls-handshake-timeout S close TLS connections whose handshake is not done after S
                                seconds (default 10)
    """

  /// Reads the TLS flags into `config`.
  static func apply(_ args: Arguments, to config: inout ServerConfiguration) throws {
    let certs = args.values("tls-cert")
    let keys = args.values("tls-key")
    guard certs.count == keys.count else {
      throw Arguments.UsageError(
        description: "--tls-cert and --tls-key go in pairs (got \(certs.count) certificates, \(keys.count) keys)")
    }
    config.tlsCertificates = zip(certs, keys).map { ServerCertificate(certificateFile: $0, keyFile: $1) }
    let https = try args.port("https-port")
    let tls = try args.port("tls-port")
    https?.apply(port: &config.httpsPort, enabled: &config.httpsEnabled)
    tls?.apply(port: &config.tlsPort, enabled: &config.tlsEnabled)
    if certs.isEmpty, let flag = [("https-port", https), ("tls-port", tls)].first(where: { $0.1 != nil && $0.1 != .off })?.0 {
      throw Arguments.UsageError(description: "--\(flag) needs --tls-cert and --tls-key")
    }
    if let seconds = try args.double("tls-handshake-timeout") {
      guard seconds > 0, seconds <= 3600 else {
        throw Arguments.UsageError(description: "--tls-handshake-timeout must be between 0 and 3600 seconds")
      }
      config.tlsHandshakeTimeout = .milliseconds(Int64(seconds * 1000))
    }
  }

  /// With TLS on, blocks SIGHUP in this thread and so in every thread started after it
  /// (the event loops): it stays pending until ``installReload(_:logger:)``'s thread takes
  /// it with `sigwait`, the way StopSignals takes SIGINT and SIGTERM. Call it before the
  /// server is made.
  /// `alsoReloads`: something else reloads on SIGHUP too (`--api-key-file`).
  static func blockReloadSignal(_ config: ServerConfiguration, alsoReloads: Bool = false) {
    guard !config.tlsCertificates.isEmpty || alsoReloads else { return }
    SignalWaiter.block([SIGHUP])
  }

  /// With TLS on, starts a thread (`sb-sighup`) on which each SIGHUP reloads the
  /// certificates (logged either way; a failed reload keeps the old ones).
  /// `also`: what else each SIGHUP reloads (the API keys of `--api-key-file`), after the
  /// certificates; one thread takes the signal for both.
  static func installReload(_ server: ChatServer, logger: Log, also: (@Sendable () -> Void)? = nil) {
    let tls = !server.configuration.tlsCertificates.isEmpty
    guard tls || also != nil else { return }
    do {
      try SignalWaiter.start(name: "sb-sighup", signals: [SIGHUP]) { _ in
        if tls {
          do {
            try server.reloadTLS()
          } catch {
            logger.error("tls reload failed; keeping the old certificates", metadata: ["error": "\(error)"])
          }
        }
        also?()
      }
    } catch {
      logger.warning("cannot start the SIGHUP thread; certificates will not be reloaded", metadata: ["error": "\(error)"])
    }
  }

  /// The banner's TLS URLs for `host`.
  static func bannerURLs(_ server: ChatServer, host: String) -> [String] {
    var urls: [String] = []
    if let a = server.tlsAddress { urls.append("tls://\(host):\(a.port)") }
    if let a = server.httpsAddress { urls.append("https://\(host):\(a.port)/  wss://\(host):\(a.port)/") }
    return urls
  }
}
