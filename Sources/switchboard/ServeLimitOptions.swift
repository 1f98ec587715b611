import SwitchboardServer

/// The `serve` flags of the limits in docs/SECURITY.md ("Limits").
enum ServeLimitOptions {
  /// The flags that take a value, for `Arguments(valued:)`.
  static let valued: Set<String> = [
    "max-connections", "max-connections-per-ip", "http-request-timeout", "idle-timeout", "max-message-rate",
    "max-byte-rate", "max-datagram-rate", "max-udp-members",
  ]

  /// The lines of `serve --help` that describe them.
  static let help = """
      --max-connections N       open TCP connections in all (default: the open-file limit
                                less 64; 0: no cap); over it: `! too many connections` / 503
      --max-connections-per-ip N  open TCP connections from one address, loopback too
                                (default 256; 0: no cap)
      --http-request-timeout SECONDS  an HTTP request must arrive within this (default 10;
                                0: off); else 408 and close
      --idle-timeout SECONDS    close line connections that send nothing, and WebSocket ones
                                that send no data frame (pings do not count), this long
                                (default: off; the seed apps may listen silently for hours)
      --max-message-rate N      messages a second per connection, burst 2×N (default: off);
                                excess: `! slow down`, persistent excess: disconnected
      --max-byte-rate BYTES     bytes a second per connection in lines and WebSocket
                                messages, burst 2×BYTES (default: off); answered the same
      --max-datagram-rate N     UDP datagrams a second per source address, burst 2×N, the
                                excess dropped (default 1000; 0: off)
      --max-udp-members N       UDP members at once: addresses that proved they receive
                                there (`/ok CODE`) and get their room (default 4096; 0: no
                                cap); over it: `! too many UDP members (N); …`
    """

  /// Reads the flags into `limits`.
  static func apply(_ args: Arguments, to limits: inout ServerLimits) throws {
    if let n = try args.int("max-connections", in: 0...10_000_000) { limits.maxConnections = n }
    if let n = try args.int("max-connections-per-ip", in: 0...10_000_000) { limits.maxConnectionsPerIP = n }
    if let s = try args.int("http-request-timeout", in: 0...86_400) { limits.httpRequestTimeout = .seconds(s) }
    if let s = try args.int("idle-timeout", in: 0...(30 * 86_400)) { limits.idleTimeout = s == 0 ? nil : .seconds(s) }
    if let n = try args.int("max-message-rate", in: 0...1_000_000) { limits.maxMessageRate = n == 0 ? nil : n }
    if let n = try args.int("max-byte-rate", in: 0...1_000_000_000) { limits.maxByteRate = n == 0 ? nil : n }
    if let n = try args.int("max-datagram-rate", in: 0...10_000_000) { limits.maxDatagramRate = n == 0 ? nil : n }
    if let n = try args.int("max-udp-members", in: 0...10_000_000) { limits.maxUDPMembers = n == 0 ? nil : n }
  }
}
