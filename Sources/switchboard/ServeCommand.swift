import Dispatch
import Foundation
import SwitchboardChat
import SwitchboardIO
import SwitchboardLog
import SwitchboardRedis
import SwitchboardServer
import SwitchboardStore
import SwitchboardWire
import Synchronization

enum ServeCommand {
  static let help = """
    usage: switchboard serve [OPTIONS]

    Runs the server: TCP line chat, UDP datagram chat and HTTP + WebSocket (the web chat
    page), bridged into shared rooms. Prints the URLs a phone on the same network can use.

    options:
      --host ADDR               address to bind (default 0.0.0.0; :: for IPv6 and IPv4)
      --tcp-port N              TCP line chat port (default 8080; 0 turns it off; any: the
                                kernel picks one, reported on the listening line)
      --udp-port N              UDP datagram port (default 8081; 0 turns it off; any)
      --http-port N             HTTP + WebSocket port (default 1337; 0 turns it off; any)
      --ports-file PATH         once every listener is bound, write their ports there as JSON
                                ({"tcp":41234,"udp":41235,"http":41236}; the file appears
                                whole, and is removed at start and on a clean exit)
    \(ServeTLSOptions.help)
      --room NAME               room new members land in (default lobby)
      --data-dir PATH           where history is kept (default ./.switchboard)
      --ephemeral               keep nothing on disk
      --name INSTANCE           the name advertised over mDNS/DNS-SD (default Switchboard on
                                HOSTNAME): _switchboard._tcp, _switchboard._udp and _http._tcp,
                                one per listener that is on (docs/DISCOVERY.md)
      --no-advertise            do not advertise over mDNS
      --mdns BACKEND            auto (default: the system's DNS-SD daemon when it answers;
                                on macOS always mDNSResponder), builtin (Linux only) or system
      --mdns-interface NAMES    advertise only on these interfaces, comma-separated (default:
                                every multicast one, or the one holding --host's address)
      --max-message-size BYTES  largest WebSocket message (default 1048576)
      --max-line-length BYTES   longest TCP line (default 65536)
    \(ServeLimitOptions.help)
    \(ServeGrowthOptions.help)
      --history N               messages kept per room (default 1000)
      --history-max-age SECONDS drop kept messages older than this (default: keep by count only)
      --durability MODE         when a message counts as stored and is acked: batched (default:
                                after its batch commits), fsync (after an fsync'd commit), none
      --loops N                 event loops (default: one per core)
      --backend NAME            I/O backend: io_uring (default on Linux where the kernel
                                allows it: epoll + batched sends), epoll, dispatch (the
                                default and the only one on macOS)
      --redis URL               share rooms with other nodes through Redis (redis:// or
                                rediss://; history then lives in Redis: docs/SCALING.md);
                                a Redis Cluster is detected (INFO cluster); give --redis
                                again for more cluster seed nodes
      --redis-timeout SECONDS   with --redis: how long Redis may be silent (default 5): the
                                command and connect timeout; a publish fails after twice it,
                                the pub/sub probe runs every SECONDS and waits 0.6 of it
    \(ServeAuthOptions.help)
    \(ServeTokenOptions.help)
    \(ServeAPIOptions.help)
    \(ServeAdminOptions.help)
    \(ServeWebhookOptions.help)
    \(ServeAuthProxyOptions.help)
      --log-level LEVEL         trace, debug, info, notice, warning, error, critical
                                (default info)
      --log-format FORMAT       text (default) or json: one JSON object per line, with
                                ts, level, label, msg and the line's metadata
      --version                 print the version and the commit it was built from
      -h, --help                this text

    Once every listener is bound, stdout gets one line naming them, before the banner:
      listening tcp=127.0.0.1:41234 udp=127.0.0.1:41235 http=127.0.0.1:41236
    (tls= and https= too with --tls-cert; a listener that is off is left out).
    Logs go to stderr; docs/OPERATIONS.md lists the lines and their metadata keys.

    SIGHUP (with --tls-cert): the certificates and keys are read again; new handshakes use
    them, open connections go on, a reload that fails is logged and keeps the old ones.
    SIGINT or SIGTERM: goodbyes withdraw the advertised services, members are told the
    server is going away, then it exits 0.
    Exit codes: 0 clean shutdown, 1 could not start (e.g. port in use), 64 bad usage.
    """

  static func run(_ argv: [String]) -> Int32 {
    let args: Arguments
    var config = ServerConfiguration()
    var history = HistoryOptions()
    var redis: ServeRedis.Target?
    let logOptions: LogOptions
    let advertising: ServeAdvertising.Options
    var portsFile: String?
    var webhooks: ServeWebhookOptions?
    do {
      args = try Arguments(
        argv,
        valued: LogOptions.flags.union(ServeAdvertising.Options.valued).union(ServeLimitOptions.valued).union(ServeGrowthOptions.valued)
          .union(ServeTLSOptions.valued).union(ServeAuthOptions.valued).union(ServeTokenOptions.valued)
          .union(ServeAPIOptions.valued).union(ServeWebhookOptions.valued).union(ServeAuthProxyOptions.valued)
          .union(ServeAdminOptions.valued).union([
          "host", "tcp-port", "udp-port", "http-port", "room", "data-dir", "name", "max-message-size",
          "max-line-length", "history", "history-max-age", "durability", "loops", "backend", "redis",
          "redis-timeout", "ports-file",
        ]),
        booleans: ["ephemeral", "no-advertise", "help"])
      if let code = args.helpOrVersion(help) { return code }
      // Large frames' buffers go back to the kernel when freed (docs/OPERATIONS.md, "Memory").
      HeapPolicy.returnLargeBuffersAtOnce()
      if let extra = args.positional.first {
        throw Arguments.UsageError(description: "unexpected argument '\(extra)'")
      }
      if let host = args.value("host") { config.host = host }
      try args.port("tcp-port")?.apply(port: &config.tcpPort, enabled: &config.tcpEnabled)
      try args.port("udp-port")?.apply(port: &config.udpPort, enabled: &config.udpEnabled)
      try args.port("http-port")?.apply(port: &config.httpPort, enabled: &config.httpEnabled)
      portsFile = args.value("ports-file")
      if let room = args.value("room") {
        guard let valid = RoomName.validate(room) else {
          throw Arguments.UsageError(description: "--room: '\(room)' is not a room name (1-64 letters, digits, - _ .)")
        }
        config.defaultRoom = valid
      }
      if let dir = args.value("data-dir") { history.directory = dir }
      history.ephemeral = args.flag("ephemeral")
      advertising = try ServeAdvertising.Options(args)
      config.instanceName = advertising.instance
      config.advertise = advertising.enabled
      if let n = try args.int("max-message-size", in: 1...(1 << 30)) { config.maxMessageSize = n }
      if let n = try args.int("max-line-length", in: 1...(1 << 30)) { config.maxLineLength = n }
      try ServeLimitOptions.apply(args, to: &config.limits)
      try ServeGrowthOptions.apply(args, to: &config.limits, store: &history.store)
      if let n = try args.int("history", in: 0...10_000_000) { config.historyLimit = n }
      if let n = try args.int("loops", in: 1...1024) { config.loopCount = n }
      if let age = try args.int("history-max-age", in: 1...(100 * 365 * 86400)) {
        history.store.retentionAge = .seconds(age)
      }
      if let d = args.value("durability") {
        switch d {
        case "batched": history.store.durability = .batched
        case "fsync": history.store.durability = .fsync
        case "none": history.store.durability = .none
        default: throw Arguments.UsageError(description: "--durability must be batched, fsync or none, not '\(d)'")
        }
      }
      if let b = args.value("backend") {
        guard let backend = SelectorBackend(rawValue: b) else {
          throw Arguments.UsageError(description: "--backend must be epoll, io_uring or dispatch, not '\(b)'")
        }
        if let reason = backend.unavailableReason(available: SelectorBackend.available, platform: BuildPlatform.name) {
          throw Arguments.UsageError(description: "--backend: \(reason)")
        }
        config.backend = backend
      }
      try ServeTLSOptions.apply(args, to: &config)
      logOptions = try LogOptions(args, defaultLevel: .info)
      redis = try ServeRedis.configuration(args.values("redis"), timeout: try args.double("redis-timeout"))
      try ServeAuthOptions.apply(args, to: &config)
      try ServeTokenOptions.apply(args, to: &config)
      try ServeAPIOptions.apply(args, to: &config)
      config.api.nodeID = ServeAPIOptions.nodeID(clustered: redis != nil, instance: config.instanceName)
      webhooks = try ServeWebhookOptions.parse(args)
      try ServeAuthProxyOptions.apply(args, to: &config)
      try ServeAdminOptions.apply(args, to: &config)
    } catch {
      return Usage.fail("serve", "\(error)")
    }

    let logger = logOptions.logger()
    config.logger = logger
    config.broker = redis.map(ServeRedis.broker) ?? history.broker
    if let metrics = redis?.metrics {
      config.additionalMetrics = { metrics.prometheusText }
    } else if !history.ephemeral {
      let statistics = history.statistics
      config.additionalMetrics = { statistics.prometheusText }
    }
    let mdnsMetrics = ServeAdvertising.MetricsSlot()
    let otherMetrics = config.additionalMetrics
    config.additionalMetrics = { (otherMetrics?() ?? "") + mdnsMetrics.prometheusText }
    webhooks?.install(into: &config)
    logger.info(
      "starting",
      metadata: [
        "version": SwitchboardVersion.number, "commit": BuildCommit.id, "backend": config.backend.rawValue,
        "loops": "\(config.loopCount)",
      ])
    let server: ChatServer
    ServeTLSOptions.blockReloadSignal(
      config, alsoReloads: ServeAPIOptions.reloads(args) || ServeAdminOptions.reloads(args))
    BoundPorts.removeStale(portsFile)
    do {
      server = try ChatServer(configuration: config)
      try server.start()
      try BoundPorts.report(server, file: portsFile)
    } catch {
      Output.error("switchboard serve: \(error)")
      return ExitCode.failure
    }
    printBanner(server)

    let stop = DispatchSemaphore(value: 0)
    StopSignals.install { sig in
      logger.notice("shutting down", metadata: ["signal": sig == SIGINT ? "SIGINT" : "SIGTERM"])
      stop.signal()
    }
    let advertiser = ServeAdvertising.start(
      advertising, server: server, room: config.defaultRoom, logger: logger, metrics: mdnsMetrics)
    ServeTLSOptions.installReload(
      server, logger: logger,
      also: ServeAdminOptions.both(
        ServeAPIOptions.reload(args, config, logger: logger), ServeAdminOptions.reload(args, config, logger: logger)))
    stop.wait()
    advertiser?.shutdown()
    server.shutdown(reason: "server shutting down")
    BoundPorts.removeStale(portsFile)
    logger.info("stopped")
    return ExitCode.ok
  }

  /// Where `serve` keeps history: the store behind the local broker, chosen here so the
  /// server library links no store of its own.
  struct HistoryOptions {
    var directory = ".switchboard"
    var ephemeral = false
    var store = SQLiteStoreConfiguration()
    /// The store's statistics, for `/metrics`, once the broker factory opened it.
    let statistics = StatisticsSlot()

    /// Where the broker factory leaves the history store's statistics.
    final class StatisticsSlot: Sendable {
      private let value = Mutex<HistoryStoreStatistics?>(nil)
      func set(_ statistics: HistoryStoreStatistics) { value.withLock { $0 = statistics } }
      var prometheusText: String { value.withLock { $0 }?.prometheusText() ?? "" }
    }

    /// The broker factory for ``ServerConfiguration/broker``: in memory with
    /// `--ephemeral`, else SQLite in `directory`.
    var broker: @Sendable (ServerConfiguration) throws -> any RoomBroker {
      let options = self
      return { config in
        guard !options.ephemeral else { return LocalRoomBroker(retention: config.historyLimit) }
        var storeConfig = options.store
        storeConfig.retentionCount = config.historyLimit
        storeConfig.logger = config.logger
        let store: SQLiteHistoryStore
        do throws(StoreError) {
          store = try SQLiteHistoryStore(directory: options.directory, configuration: storeConfig)
        } catch {
          throw error.with(message:
            "\(error) (use --data-dir to choose another place, or --ephemeral to keep nothing on disk)")
        }
        options.statistics.set(store.statistics)
        config.logger.info(
          "history kept", metadata: ["path": "\(store.path)", "durability": "\(storeConfig.durability)"])
        return LocalRoomBroker(store: store)
      }
    }
  }

  static func printBanner(_ server: ChatServer) {
    var lines = ["Switchboard is running. Connect with:"]
    let hosts: [String]
    let bound = server.tcpAddress ?? server.udpAddress ?? server.httpAddress ?? server.tlsAddress ?? server.httpsAddress
    if let bound, bound.isWildcard {
      let all = NetworkInterfaces.addresses().filter { iface in
        bound.family == AF_INET6 ? true : iface.address.family == AF_INET
      }
      hosts = all.map { $0.address.family == AF_INET6 ? "[\($0.address.ipAddress)]" : $0.address.ipAddress }
        .filter { !$0.hasPrefix("[fe80") }
    } else if let bound {
      hosts = [bound.family == AF_INET6 ? "[\(bound.ipAddress)]" : bound.ipAddress]
    } else {
      hosts = []
    }
    for host in hosts.isEmpty ? ["127.0.0.1"] : hosts {
      var urls: [String] = []
      if let a = server.tcpAddress { urls.append("tcp://\(host):\(a.port)") }
      if let a = server.udpAddress { urls.append("udp://\(host):\(a.port)") }
      if let a = server.httpAddress { urls.append("http://\(host):\(a.port)/  ws://\(host):\(a.port)/") }
      urls += ServeTLSOptions.bannerURLs(server, host: host)
      lines.append("  " + urls.joined(separator: "  "))
    }
    if let a = server.tcpAddress { lines.append("Try: nc \(hosts.first ?? "127.0.0.1") \(a.port)") }
    Output.print(lines.joined(separator: "\n"))
  }
}
