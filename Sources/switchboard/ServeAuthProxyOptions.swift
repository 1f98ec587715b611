import SwitchboardServer

/// `serve`'s auth proxy flags (docs/API.md, "Auth proxy"): `--auth-proxy URL`,
/// `--auth-proxy-timeout SECONDS`, `--auth-proxy-cache SECONDS`.
enum ServeAuthProxyOptions {
  static let valued: Set<String> = ["auth-proxy", "auth-proxy-timeout", "auth-proxy-cache"]

  static let help = """
      --auth-proxy URL          ask the app's backend (http[s]://HOST[:PORT]/PATH, a JSON POST)
                                whether each connection may enter, under which name and into
                                which rooms, when it names itself; no answer means refused
                                (docs/API.md, "Auth proxy"); UDP chat is then off
      --auth-proxy-timeout SECONDS
                                how long the backend may take to answer (default 3; 0.05-60)
      --auth-proxy-cache SECONDS
                                reuse an answer for an identical request this long (default
                                0: ask every time; at most 300)
    """

  /// Reads the flags into `config`.
  /// - Throws: `Arguments.UsageError` for a URL that is not `http[s]://HOST[:PORT][/PATH]`, a
  ///   timeout or cache time out of range, or a timeout or cache time without `--auth-proxy`.
  static func apply(_ args: Arguments, to config: inout ServerConfiguration) throws {
    let timeout = try args.double("auth-proxy-timeout")
    let cache = try args.double("auth-proxy-cache")
    guard let raw = args.value("auth-proxy") else {
      if timeout != nil || cache != nil {
        throw Arguments.UsageError(
          description: "--\(timeout != nil ? "auth-proxy-timeout" : "auth-proxy-cache") needs --auth-proxy")
      }
      return
    }
    let url: OutboundURL
    do {
      url = try OutboundURL(raw)
    } catch {
      throw Arguments.UsageError(description: "--auth-proxy: \(error)")
    }
    var proxy = AuthProxyConfiguration(url: url)
    if let timeout {
      guard (0.05...60).contains(timeout) else {
        throw Arguments.UsageError(
          description: "--auth-proxy-timeout must be 0.05-60 seconds, not \(timeout)")
      }
      proxy.timeout = .milliseconds(Int64(timeout * 1000))
    }
    if let cache {
      guard cache <= 300 else {
        throw Arguments.UsageError(description: "--auth-proxy-cache must be 0-300 seconds, not \(cache)")
      }
      proxy.cacheTime = .milliseconds(Int64(cache * 1000))
    }
    config.authProxy = proxy
  }
}
