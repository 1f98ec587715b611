import SwitchboardCrypto
import SwitchboardHTTP
import Synchronization

/// The keys the server API accepts (`--api-key`, `--api-key-file`; docs/API.md): any one
/// of them lets a request in, so a key can be rotated by listing the new one beside the
/// old. Kept as SHA-256 digests and compared in constant time: a presented key is hashed
/// and compared with every digest, so neither the time taken nor a length check tells an
/// attacker anything about the keys. Replaceable while the server runs (`SIGHUP` re-reads
/// `--api-key-file`).
public final class ServerAPIKeys: Sendable {
  private let digests: Mutex<[[UInt8]]>

  /// Keys to accept; empty strings are ignored.
  public init(_ keys: [String]) {
    digests = Mutex(Self.digests(of: keys))
  }

  /// Accepts `keys` from now on, instead of the ones before.
  public func replace(with keys: [String]) {
    let new = Self.digests(of: keys)
    digests.withLock { $0 = new }
  }

  /// How many keys are accepted.
  public var count: Int { digests.withLock { $0.count } }

  /// Whether `presented` is one of the keys. Every digest is compared, whatever matches.
  public func accepts(_ presented: String) -> Bool {
    let digest = SHA256.hash(Array(presented.utf8))
    let known = digests.withLock { $0 }
    var found = false
    for candidate in known where ConstantTime.equal(candidate, digest) { found = true }
    return found && !presented.isEmpty
  }

  private static func digests(of keys: [String]) -> [[UInt8]] {
    keys.filter { !$0.isEmpty }.map { SHA256.hash(Array($0.utf8)) }
  }

  /// The keys of a key file's text: one a line, surrounding blanks dropped, blank lines and
  /// lines starting with `#` skipped.
  public static func keys(inFile text: String) -> [String] {
    text.split(whereSeparator: \.isNewline).compactMap { line in
      let key = String(line.trimmingSpacesAndTabs())
      return key.isEmpty || key.hasPrefix("#") ? nil : key
    }
  }
}
