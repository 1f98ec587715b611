import Synchronization
import SwitchboardIO
import SwitchboardTLS

/// The TLS side of a server: the OpenSSL contexts of the HTTPS and `tls://` listeners,
/// made from ``ServerConfiguration/tlsCertificates``, and the addresses they bound.
///
/// ``reload()`` reads the files again and swaps the contexts in one step. A handshake
/// starts from the context current when its connection was accepted; established
/// connections keep the context (and certificate) they began with, so nothing drops.
/// A reload that fails leaves the old contexts in place.
final class ServerTLS: Sendable {
  /// The contexts in use: HTTPS offers ALPN `http/1.1`, the line port no ALPN.
  struct Contexts {
    let https: TLSContext
    let line: TLSContext
  }

  let certificates: [ServerCertificate]
  private let state: Mutex<State>

  private struct State {
    var contexts: Contexts
    var httpsAddress: SocketAddress?
    var tlsAddress: SocketAddress?
  }

  /// The server's TLS, or `nil` when no certificate is configured.
  /// - Throws: ``ServerError`` naming the file that cannot be loaded.
  static func make(_ configuration: ServerConfiguration) throws(ServerError) -> ServerTLS? {
    guard !configuration.tlsCertificates.isEmpty else { return nil }
    return try ServerTLS(certificates: configuration.tlsCertificates)
  }

  init(certificates: [ServerCertificate]) throws(ServerError) {
    self.certificates = certificates
    state = Mutex(State(contexts: try Self.load(certificates)))
  }

  private static func load(_ certificates: [ServerCertificate]) throws(ServerError) -> Contexts {
    func identities(_ alpn: [String]) -> [TLSServerConfiguration] {
      certificates.map {
        TLSServerConfiguration(
          certificateChainPEMFile: $0.certificateFile, privateKeyPEMFile: $0.keyFile, applicationProtocols: alpn)
      }
    }
    do {
      return Contexts(
        https: try TLSContext(serverIdentities: identities(["http/1.1"])),
        line: try TLSContext(serverIdentities: identities([])))
    } catch {
      throw ServerError("TLS: \(error)")
    }
  }

  /// The contexts new handshakes use.
  var contexts: Contexts { state.withLock { $0.contexts } }

  /// Reads every certificate and key again; on success new handshakes use them.
  /// - Returns: the default certificate's summary (subject, serial, expiry).
  /// - Throws: ``ServerError`` saying why; the old certificates stay in use.
  @discardableResult
  func reload() throws(ServerError) -> String {
    let fresh = try Self.load(certificates)
    state.withLock { $0.contexts = fresh }
    return fresh.https.certificateSummary ?? ""
  }

  var httpsAddress: SocketAddress? { state.withLock { $0.httpsAddress } }
  var tlsAddress: SocketAddress? { state.withLock { $0.tlsAddress } }

  func recordHTTPS(_ address: SocketAddress) { state.withLock { $0.httpsAddress = address } }
  func recordTLS(_ address: SocketAddress) { state.withLock { $0.tlsAddress = address } }
}
