import SwitchboardChat
import SwitchboardIO
import SwitchboardLog

/// What every session on one event loop shares: the loop, its hub shard, and the
/// sessions it owns (loop-confined, so plain dictionaries).
final class LoopContext {
  let loop: EventLoop
  let shard: HubShard
  let core: ServerCore
  /// Sessions alive on this loop, owned here until their connection closes. Timers and
  /// store completions find a session here by id instead of holding it weakly.
  var sessions = SessionTable()
  /// HTTP connections alive on this loop, until they close or are upgraded (see
  /// LoopContext+HTTPDeadlines.swift).
  var httpSessions: [ObjectIdentifier: HTTPSession] = [:]
  /// The deadline sweep of `httpSessions`, while there is one.
  var httpSweep: Scheduled?
  /// Listeners running on this loop.
  var listeners: [TCPListener] = []
  /// The UDP service, on the loop that owns the UDP socket.
  var udp: UDPService?
  /// This loop's counters and gauges in `/metrics` (LoopContext+Metrics.swift).
  let stats: LoopMetrics
  /// The loop-lag tick.
  var statsTick: Scheduled?
  /// The WebSocket keepalive of every session on this loop (LoopContext+Keepalive.swift):
  /// one timer while any is open, instead of one per session.
  var keepalive: Scheduled?
  /// WebSocket sessions open on this loop (the keepalive runs while there is one).
  var webSocketCount = 0
  /// `--max-joins-per-minute` of the members on this loop (LoopContext+Growth.swift).
  var joins: JoinRateLimiter
  /// The admin console's streams on this loop (HTTPSession+AdminEvents.swift).
  var adminStreams: [ObjectIdentifier: HTTPSession] = [:]

  init(loop: EventLoop, shard: HubShard, core: ServerCore) {
    self.loop = loop
    self.shard = shard
    self.core = core
    self.joins = JoinRateLimiter(perMinute: core.configuration.limits.maxJoinsPerMinute)
    let loops = core.metrics.loops
    self.stats = loops.indices.contains(loop.index) ? loops[loop.index] : LoopMetrics(index: loop.index)
  }

  var hub: ChatHub { core.hub }
  var configuration: ServerConfiguration { core.configuration }
  var metrics: ServerMetrics { core.metrics }
  var logger: Log { core.logger }
}
