import Synchronization

/// Counts open TCP connections, in total and per peer IP address, and refuses the ones over
/// ``ServerConfiguration/maxConnections`` or ``ServerConfiguration/maxConnectionsPerIP``
/// (0: no limit). Shared by every loop: one lock around two counters.
///
/// Every address counts, loopback too: a proxy in front of the server that connects from
/// one address needs `--max-connections-per-ip 0` (docs/SECURITY.md).
final class ConnectionLimiter: Sendable {
  /// Whether a new connection may stay.
  enum Verdict: Equatable {
    case admitted
    /// Over the server-wide cap.
    case overTotal(limit: Int)
    /// Over the per-address cap.
    case overPerIP(limit: Int)
  }

  private struct Counts {
    var total = 0
    var perIP: [String: Int] = [:]
    /// The admitted connections: a release of anything else (the plaintext side of a TLS
    /// session, say) is ignored, and none counts out twice. Their addresses are not kept
    /// here (the caller gives it again at the release): 8 bytes a slot, not 24.
    var admitted: Set<ObjectIdentifier> = []
  }

  let maxTotal: Int
  let maxPerIP: Int
  private let counts = Mutex(Counts())

  init(maxTotal: Int, maxPerIP: Int) {
    self.maxTotal = maxTotal
    self.maxPerIP = maxPerIP
  }

  /// Counts a connection from `ip` in, unless that breaks a cap (then nothing is counted
  /// and nothing needs releasing).
  func admit(_ id: ObjectIdentifier, ip: String) -> Verdict {
    counts.withLock { c in
      if maxTotal > 0, c.total >= maxTotal { return .overTotal(limit: maxTotal) }
      let mine = c.perIP[ip, default: 0]
      if maxPerIP > 0, mine >= maxPerIP { return .overPerIP(limit: maxPerIP) }
      c.total += 1
      c.perIP[ip] = mine + 1
      c.admitted.insert(id)
      return .admitted
    }
  }

  /// Counts an admitted connection out (nothing if `id` was not admitted or is out already).
  /// `ip` is the address it was admitted with.
  func release(_ id: ObjectIdentifier, ip: String) {
    counts.withLock { c in
      guard c.admitted.remove(id) != nil else { return }
      c.total -= 1
      let left = c.perIP[ip, default: 1] - 1
      c.perIP[ip] = left > 0 ? left : nil
    }
  }

  /// Connections counted now (for tests).
  var open: Int { counts.withLock { $0.total } }
}
