import SwitchboardIO

#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// The limits `switchboard serve` enforces against peers that misbehave (docs/SECURITY.md,
/// "Limits"): each has a safe default, a flag, an answer when exceeded and a counter in
/// ``LimitMetrics``. 0 (or `nil`) turns a limit off.
public struct ServerLimits: Sendable, Equatable {
  /// Open TCP connections, all listeners together (`--max-connections`). The default is the
  /// process's open-file limit less 64 descriptors kept for listeners, the history store and
  /// logs: past it `accept` would fail anyway, this way the peer gets an answer.
  public var maxConnections = ServerLimits.descriptorBudget()
  /// Open TCP connections from one IP address (`--max-connections-per-ip`); loopback counts
  /// like any other address.
  public var maxConnectionsPerIP = 256
  /// How long an HTTP client has to send a whole request once its connection opened or its
  /// previous request was answered and it started the next (`--http-request-timeout`);
  /// answered `408` and closed.
  public var httpRequestTimeout: Duration = .seconds(10)
  /// Line and WebSocket connections that send nothing for this long are closed
  /// (`--idle-timeout`; on WebSocket only data frames count, pings and pongs do not). Off
  /// by default: the seed apps connect and may listen silently for hours, and WebSocket
  /// pings already find dead peers.
  public var idleTimeout: Duration? = nil
  /// Chat messages a second one connection may send (`--max-message-rate`), with a burst of
  /// twice as many. Off by default, so benchmarks and LAN use are unaffected.
  public var maxMessageRate: Int? = nil
  /// Bytes a second one connection may send in messages (`--max-byte-rate`): each line
  /// (with its newline) or WebSocket data message costs its length, burst twice as many.
  /// Off by default, like the message rate.
  public var maxByteRate: Int? = nil
  /// Datagrams a second one source IP address may send to the UDP port
  /// (`--max-datagram-rate`), burst twice as many; the rest are dropped and counted.
  public var maxDatagramRate: Int? = 1000
  /// UDP members at once (`--max-udp-members`): source addresses that proved they receive
  /// at their address and get their room's messages. A proof past it is answered
  /// `! too many UDP members …` and counted; the address stays unproven.
  public var maxUDPMembers: Int? = 4096
  /// With tokens on, how long a TCP or TLS line client has after connecting to send its
  /// `auth:` line (`--auth-timeout`); answered `! authentication timed out …` and closed.
  /// `nil` waits forever. Ten seconds: enough for a script, and a client that connects and
  /// says nothing holds no descriptor for long.
  public var authTimeout: Duration? = .seconds(10)
  /// Rooms this node keeps, in memory and on disk (`--max-rooms`); a join of a new room
  /// past it is refused (``RoomCap``), rooms already kept still work.
  public var maxRooms: Int? = 10_000
  /// Room joins one connection (or UDP source) may make a minute, burst a minute's worth
  /// (`--max-joins-per-minute`); the rest are refused (``JoinRateLimiter``).
  public var maxJoinsPerMinute: Int? = 60

  public init() {}

  /// What is left of the idle timeout after the last activity, or `nil` when it ran out
  /// (the check of `--idle-timeout` on lines and WebSocket).
  static func idleTimeLeft(since last: Deadline, timeout: Duration, now: Deadline = .now()) -> Duration? {
    let quiet = now.nanoseconds &- last.nanoseconds
    return quiet < timeout.nanoseconds ? .nanoseconds(Int64(timeout.nanoseconds - quiet)) : nil
  }

  /// The soft open-file limit less 64, at least 16.
  public static func descriptorBudget() -> Int {
    guard let limit = Posix.fileLimit(), limit.soft < 1 << 40 else { return 10_000 }
    return max(16, Int(clamping: limit.soft) - 64)
  }
}
