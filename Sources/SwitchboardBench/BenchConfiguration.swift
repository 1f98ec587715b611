/// What `switchboard bench` is asked to do.
public struct BenchConfiguration: Sendable {
  /// How messages travel.
  public enum WireProtocol: String, Sendable, CaseIterable {
    /// WebSocket, Switchboard's JSON protocol: `{"type":"message","data":{"text":T}}` out,
    /// the message frame's `data.text` in.
    case json
    /// WebSocket text frames carrying exactly the message text (Switchboard's
    /// `?format=text&notify_self=1`, and what the peer hubs speak).
    case text
    /// Newline-terminated lines over raw TCP (`tcp://`): `msg:T` out, `NAME: T` in.
    case line
  }

  /// A `ws://host:port/path?query`, `wss://…` (the same over TLS) or `tcp://host:port` target.
  public struct Target: Sendable, Hashable, CustomStringConvertible {
    /// `ws`, `wss` or `tcp`.
    public var scheme: String
    public var host: String
    public var port: Int
    /// Request target for WebSocket (`/rooms/bench?format=text`), `/` when absent.
    public var path: String

    /// Parses `ws://host[:port][/path]`, `wss://host[:port][/path]` or `tcp://host[:port]`.
    /// - Throws: ``BenchError`` for anything else.
    public init(_ raw: String) throws(BenchError) {
      let chars = Array(raw)
      guard let sepIndex = (0..<max(chars.count - 2, 0)).first(where: { chars[$0] == ":" && chars[$0 + 1] == "/" && chars[$0 + 2] == "/" }) else {
        throw BenchError("'\(raw)' is not a URL like ws://127.0.0.1:1337/")
      }
      let sepStart = raw.index(raw.startIndex, offsetBy: sepIndex)
      let sepEnd = raw.index(sepStart, offsetBy: 3)
      scheme = raw[..<sepStart].lowercased()
      let defaults = ["ws": 1337, "wss": 1443, "tcp": 8080]
      guard let defaultPort = defaults[scheme] else {
        throw BenchError("unsupported scheme '\(scheme)' (bench speaks ws://, wss:// and tcp://)")
      }
      var rest = raw[sepEnd...]
      var pathPart = "/"
      if let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) {
        pathPart = String(rest[slash...])
        if pathPart.hasPrefix("?") { pathPart = "/" + pathPart }
        rest = rest[..<slash]
      }
      var hostPart = String(rest)
      var portValue = defaultPort
      if hostPart.hasPrefix("["), let close = hostPart.firstIndex(of: "]") {
        let after = hostPart[hostPart.index(after: close)...]
        if after.hasPrefix(":") {
          guard let p = Int(after.dropFirst()) else { throw BenchError("bad port in '\(raw)'") }
          portValue = p
        }
        hostPart = String(hostPart[...close])
      } else if let colon = hostPart.lastIndex(of: ":") {
        guard let p = Int(hostPart[hostPart.index(after: colon)...]) else { throw BenchError("bad port in '\(raw)'") }
        portValue = p
        hostPart = String(hostPart[..<colon])
      }
      guard !hostPart.isEmpty, (1...65535).contains(portValue) else { throw BenchError("bad host or port in '\(raw)'") }
      host = hostPart
      port = portValue
      path = pathPart
    }

    public var description: String {
      scheme == "tcp" ? "tcp://\(host):\(port)" : "\(scheme)://\(host):\(port)\(path)"
    }
  }

  /// Where to connect.
  public var target: Target
  /// More servers of the same cluster (same scheme and path): the senders connect to
  /// ``target``, every other connection goes to ``target`` and these in turn.
  public var extraTargets: [Target] = []
  /// When sending starts, as seconds since the Unix epoch (instead of once the settle
  /// phase is over), so generator processes sharing one room measure the same window.
  public var startAt: Double? = nil
  /// Connections to open.
  public var connections = 100
  /// How many of the connections send (the first `senders` ones).
  public var senders = 1
  /// Total messages per second over all senders; 0 = as fast as the window allows.
  public var rate: Double = 100
  /// In-flight messages per sender (sent, not yet seen by the sender's observer).
  /// `nil` picks 64 without a rate and one second's worth of messages with one.
  public var window: Int? = nil
  /// Message text size in bytes (the header `b:S:N:T:` plus `x` padding).
  public var size = 64
  /// Measured seconds.
  public var duration: Double = 10
  /// Seconds of sending before measuring starts.
  public var warmup: Double = 2
  /// The wire protocol; `nil` means `line` for tcp:// and `text` for ws://.
  public var wireProtocol: WireProtocol = .text
  /// Open the connections and hold them without sending.
  public var idle = false
  /// Client event loops.
  public var loops = 1
  /// Connections being opened at the same time (the rest wait), so a listen backlog is
  /// not overrun.
  public var connectConcurrency = 256
  /// Give up on connections not open after this many seconds.
  public var connectTimeout: Double = 60
  /// After the measured window, wait at most this long for messages still in flight
  /// (stopping earlier once nothing has arrived for a second).
  public var drainTimeout: Double = 10
  /// A server process to sample (CPU time over the measured window, RSS).
  public var serverPID: Int32? = nil

  /// A configuration with defaults for `target`.
  public init(target: Target) {
    self.target = target
    wireProtocol = target.scheme == "tcp" ? .line : .text
  }

  /// Every server connected to: ``target`` first, then ``extraTargets``.
  public var targets: [Target] { [target] + extraTargets }

  /// The index in ``targets`` of connection `g`: senders on the first, the others in turn.
  public func targetIndex(ofConnection g: Int) -> Int {
    let count = extraTargets.count + 1
    return g < senders || count == 1 ? 0 : (g - senders) % count
  }

  /// Whether this process only receives (`--senders 0`): it counts what other processes'
  /// senders published in the window set by ``startAt``.
  public var receivesOnly: Bool { !idle && senders == 0 }

  /// Whether a sender receives its own messages (the JSON protocol and the text dialect
  /// with `notify_self=1` do; line chat never echoes).
  public var echoesToSender: Bool { wireProtocol != .line }

  /// Recipients each message is expected to reach.
  public var expectedRecipients: Int { echoesToSender ? connections : connections - 1 }

  /// The in-flight bound per sender in effect.
  public var effectiveWindow: Int {
    if let window { return window }
    if rate <= 0 { return 64 }
    return max(64, Int((rate / Double(max(senders, 1))).rounded(.up)))
  }

  /// The WebSocket request target: the URL's path, plus `format=text&notify_self=1` for
  /// the text protocol when the URL does not choose a format itself.
  public var requestPath: String { requestPath(for: target) }

  /// ``requestPath`` for one of ``targets``.
  public func requestPath(for target: Target) -> String {
    guard wireProtocol == .text, !target.path.contains("format=") else { return target.path }
    return target.path + (target.path.contains("?") ? "&" : "?") + "format=text&notify_self=1"
  }

  /// Checks the combination of options.
  /// - Throws: ``BenchError`` describing the first problem.
  public func validate() throws(BenchError) {
    if target.scheme == "tcp" && wireProtocol != .line {
      throw BenchError("tcp:// carries the line protocol only (--protocol line)")
    }
    if target.scheme != "tcp" && wireProtocol == .line {
      throw BenchError("--protocol line needs a tcp:// URL")
    }
    if connections < 1 { throw BenchError("--connections must be at least 1") }
    if extraTargets.contains(where: { $0.scheme != target.scheme }) {
      throw BenchError("every URL must have the same scheme")
    }
    if receivesOnly && startAt == nil {
      throw BenchError("--senders 0 (receive only) needs --start-at, the senders' start")
    }
    if !idle && !receivesOnly {
      if senders < 1 || senders > connections { throw BenchError("--senders must be in 0...\(connections)") }
      if expectedRecipients < 1 { throw BenchError("line chat does not echo: use at least 2 connections") }
      if rate <= 0 && !echoesToSender && connections < senders + loops {
        throw BenchError("--rate 0 over line chat needs a non-sending observer per sender: use more connections")
      }
    }
    if size < BenchMessage.minimumSize { throw BenchError("--size must be at least \(BenchMessage.minimumSize)") }
    if duration <= 0 { throw BenchError("--duration must be positive") }
  }
}
