import SwitchboardCrypto

/// A Lua script run with `EVALSHA`, falling back to `EVAL` when the server does not have it.
///
/// Each connection remembers which scripts it has sent (a new connection, after a
/// reconnect, knows none): the first run on a connection sends `EVAL` with the source, which
/// also caches it on the server, later runs send `EVALSHA` with ``sha1``. A `NOSCRIPT` reply
/// (the server's cache was flushed, or a failover replaced the server) is answered by sending
/// `EVAL` once more, so the caller sees only the script's result.
public struct RedisScript: Sendable, Hashable {
  /// The Lua source.
  public let source: String
  /// The SHA-1 of the source in lower-case hex, as `EVALSHA` and `SCRIPT LOAD` name it.
  public let sha1: String

  /// A script from its source.
  public init(_ source: String) {
    self.source = source
    // Lower-case hex, as Lua's `redis.sha1hex` gives it.
    sha1 = SHA1.hexDigest(source.utf8)
  }
}
