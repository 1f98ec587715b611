import SwitchboardIO

/// Whether this build of Switchboard can speak TLS, for callers that offer TLS only where it
/// works (and for tests).
///
/// TLS is OpenSSL on Linux. On Apple platforms Switchboard links no OpenSSL (Xcode has none)
/// and the Network.framework implementation is not built yet, so there every way into TLS —
/// a ``TLSContext``, a `tls://`, `wss://` or `rediss://` URL, `serve --tls-cert` — fails at
/// run time with ``TLSError/unavailable``, whose reason is ``unavailableReason(on:)``.
public enum TLSSupport {
  /// `true` where ``TLSContext`` and ``TLSSession`` work (OpenSSL is linked).
  public static var isAvailable: Bool {
    #if canImport(COpenSSL)
      return true
    #else
      return false
    #endif
  }

  /// What ``TLSError/unavailable`` says on `platform` (``BuildPlatform/name`` by default):
  /// why there is no TLS and what to do instead.
  public static func unavailableReason(on platform: String = BuildPlatform.name) -> String {
    "TLS needs OpenSSL, which this build of Switchboard on \(platform) does not include (Network.framework "
      + "TLS is not built yet); put a TLS terminator (nginx, Caddy, stunnel) in front of the server and "
      + "use plain ws:// and line chat behind it, or use a Linux build"
  }
}
