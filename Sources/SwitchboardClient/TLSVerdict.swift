import Synchronization

/// What a TLS verify hook decided for one connection, kept for the connect error: a
/// platform whose hook answers only yes or no reports a refusal as a failed handshake
/// (Network.framework: `errSSLBadCert`, "bad certificate format"), not as why the peer was
/// refused. The hook asks ``accepts(chainTrusted:leaf:)``; the connect's failure is
/// described by ``describe(failure:)``.
final class TLSVerdict: Sendable {
  /// The checks the configuration asks for.
  let check: TLSPeerCheck
  private let refused = Mutex<String?>(nil)

  init(_ check: TLSPeerCheck) { self.check = check }

  /// Whether to accept the peer, given the platform's findings
  /// (``TLSPeerCheck/refusal(chainTrusted:leaf:)``); a refusal is kept.
  func accepts(chainTrusted: Bool?, leaf: [UInt8]?) -> Bool {
    let refusal = check.refusal(chainTrusted: chainTrusted, leaf: leaf)
    refused.withLock { $0 = refusal }
    return refusal == nil
  }

  /// What to say of a connect that failed with the platform's `failure`: why the hook
  /// refused the peer when it did, else the platform's words.
  func describe(failure: String) -> String {
    refused.withLock { $0 }.map { "TLS: \($0)" } ?? failure
  }
}
