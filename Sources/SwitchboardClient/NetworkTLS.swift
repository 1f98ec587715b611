#if canImport(Network)
  import Foundation
  @preconcurrency import Network  // why: see NetworkChatTransport.swift
  import Security
  import SwitchboardTLS

  /// A ``TLSConfiguration`` as `NWProtocolTLS.Options`. Every decision is ``TLSPeerCheck``'s
  /// (shared, tested on Linux); this maps it onto `sec_protocol_options`:
  ///
  /// - ``TLSConfiguration/serverName``: `sec_protocol_options_set_tls_server_name` (SNI and
  ///   the name the certificate must carry).
  /// - ``TLSConfiguration/minimumVersion``: `sec_protocol_options_set_min_tls_protocol_version`.
  /// - ``TLSConfiguration/applicationProtocols``: `sec_protocol_options_add_tls_application_protocol`.
  /// - ``TLSConfiguration/trustRoots`` `.system`, ``TLSConfiguration/verify`` on, no pins: no
  ///   verify block at all, so the system evaluates the chain as for any app connection (its
  ///   trust store and policies).
  /// - Otherwise a verify block (`sec_protocol_options_set_verify_block`): the chain is
  ///   evaluated with `SecTrustEvaluateWithError` against the configured anchors only
  ///   (`SecTrustSetAnchorCertificates` + `SecTrustSetAnchorCertificatesOnly`) or the system
  ///   store, with an SSL policy for the server name; skipped with `verify` off; then the
  ///   leaf's public-key pin is checked. ``TLSVerdict`` keeps why it refused, for the
  ///   connect error.
  enum NetworkTLS {
    static func options(_ configuration: TLSConfiguration, queue: DispatchQueue) throws(ChatClientError)
      -> (options: NWProtocolTLS.Options, verdict: TLSVerdict)
    {
      let verdict = TLSVerdict(try TLSPeerCheck(configuration))
      let check = verdict.check
      if let anchors = check.anchors, certificates(anchors).count != anchors.count {
        throw .connectFailed("a CA certificate Security.framework cannot read")
      }
      let tls = NWProtocolTLS.Options()
      let security = tls.securityProtocolOptions
      let serverName = configuration.serverName
      if let serverName { sec_protocol_options_set_tls_server_name(security, serverName) }
      sec_protocol_options_set_min_tls_protocol_version(
        security, configuration.minimumVersion == .tls13 ? .TLSv13 : .TLSv12)
      for name in configuration.applicationProtocols {
        sec_protocol_options_add_tls_application_protocol(security, name)
      }
      guard check.anchors != nil || !check.verify || !check.pins.isEmpty else { return (tls, verdict) }
      sec_protocol_options_set_verify_block(
        security,
        { _, secTrust, complete in
          let trust = sec_trust_copy_ref(secTrust).takeRetainedValue()
          var trusted: Bool?
          if check.verify {
            _ = SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, serverName.map { $0 as CFString }))
            if let anchors = check.anchors {
              _ = SecTrustSetAnchorCertificates(trust, certificates(anchors) as CFArray)
              _ = SecTrustSetAnchorCertificatesOnly(trust, true)
            }
            trusted = SecTrustEvaluateWithError(trust, nil)
          }
          let chain = SecTrustCopyCertificateChain(trust) as? [SecCertificate]
          let leaf = chain?.first.map { [UInt8](SecCertificateCopyData($0) as Data) }
          complete(verdict.accepts(chainTrusted: trusted, leaf: leaf))
        }, queue)
      return (tls, verdict)
    }

    /// Security.framework's certificates of DER bytes (those it can read).
    private static func certificates(_ der: [[UInt8]]) -> [SecCertificate] {
      der.compactMap { SecCertificateCreateWithData(nil, Data($0) as CFData) }
    }
  }
#endif
