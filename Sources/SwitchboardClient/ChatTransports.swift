/// The built-in ``ChatTransport``s, and the platform's default.
public enum ChatTransports {
  /// The platform's transport, the default of ``ChatClient/Configuration/transport``:
  /// Network.framework (``network``) on Apple platforms, so that the system trust store,
  /// cellular and VPN on demand, Happy Eyeballs and NAT64 apply; the POSIX sockets
  /// (``posix``) elsewhere.
  public static var system: any ChatTransport {
    #if canImport(Network)
      network
    #else
      posix
    #endif
  }

  /// BSD sockets on SwitchboardIO's event loops, TLS through OpenSSL (``POSIXChatTransport``).
  public static var posix: any ChatTransport { POSIXChatTransport() }

  #if canImport(Network)
    /// Network.framework's `NWConnection` for every scheme (``NetworkChatTransport``).
    public static var network: any ChatTransport { NetworkChatTransport() }
  #endif
}
