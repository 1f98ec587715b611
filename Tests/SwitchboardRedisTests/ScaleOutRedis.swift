import SwitchboardRedis
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The Redis behind the process-level scale-out tests: one `redis-server`, or a real
/// three-master Redis Cluster — the same scenarios run against both.
final class ScaleOutRedis: Sendable {
  /// Which Redis a test runs against.
  enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case single
    case cluster
    var testDescription: String { rawValue }
  }

  let kind: Kind
  private let server: RedisServer?
  private let cluster: RedisCluster?

  /// Starts it. A cluster gets a `cluster-node-timeout` of 15 s, so that a master paused
  /// by a test stays a master (a pause past the nodes' timeouts, not a failover).
  init(_ kind: Kind) throws {
    self.kind = kind
    switch kind {
    case .single:
      server = try RedisServer()
      cluster = nil
    case .cluster:
      server = nil
      cluster = try RedisCluster(nodeTimeout: 15_000)
    }
  }

  /// The ports `serve` gets as `--redis` URLs: the server's, or every master's (seeds).
  var ports: [Int] { server.map { [$0.port] } ?? cluster!.ports }

  /// Pauses (SIGSTOP) the server, or the master serving `room`; returns what resumes it
  /// (SIGCONT to the same process — asking the cluster again could ask the paused one).
  func pause(masterOf room: String) throws -> @Sendable () -> Void {
    if let server {
      server.signal(SIGSTOP)
      return { server.signal(SIGCONT) }
    }
    let cluster = cluster!
    let slot = RedisKeySlot.slot(of: RedisRoomKeys(room: room).meta)
    guard let index = try cluster.owner(ofSlot: slot) else { throw TestFailure("no master serves \(room)") }
    cluster.signal(SIGSTOP, master: index)
    return { cluster.signal(SIGCONT, master: index) }
  }
}
