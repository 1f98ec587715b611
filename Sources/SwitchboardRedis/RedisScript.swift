import COpenSSL

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
    sha1 = Self.sha1Hex(Array(source.utf8))
  }

  /// The SHA-1 of `bytes` in lower-case hex, as Lua's `redis.sha1hex` gives it.
  static func sha1Hex(_ bytes: [UInt8]) -> String {
    var digest = [UInt8](repeating: 0, count: 20)
    bytes.withUnsafeBufferPointer { input in
      digest.withUnsafeMutableBufferPointer { output in
        _ = SHA1(input.baseAddress, input.count, output.baseAddress)
      }
    }
    let hex = Array("0123456789abcdef".utf8)
    return String(decoding: digest.flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 15)]] }, as: UTF8.self)
  }
}
