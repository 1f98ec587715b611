import Foundation
import SwitchboardBench

/// `switchboard bench URL`: the load generator (see docs/BENCHMARKS.md).
enum BenchCommand {
  static let help = """
    usage: switchboard bench URL [URL…] [OPTIONS]

    Loads a chat server and reports connect time, delivered messages per second, the
    delivery ratio and send-to-receipt latency. Every message text is
    b:<sender>:<seq>:<send time>:xxx…; every connection measures what it receives.
    URL: ws://host:port/path (WebSocket), wss://host:port/path (WebSocket over TLS; the
    certificate is not checked) or tcp://host:port (Switchboard's line chat).
    Several URLs (nodes of one cluster): the senders connect to the first, the other
    connections to all of them in turn.

    options:
      --connections N      connections to open (default 100)
      --senders S          how many of them send (default 1); 0 = receive only, counting
                           what another process sends (needs --start-at)
      --rate R             total messages per second, 0 = as fast as the window allows
                           (default 100)
      --window W           in-flight messages per sender (default 64 with --rate 0,
                           else one second's worth)
      --size BYTES         message text size (default 64, at least 48)
      --duration SECONDS   measured time (default 10)
      --warmup SECONDS     sending before measuring starts (default 2)
      --protocol P         json, text or line (default text for ws://, line for tcp://);
                           text adds ?format=text&notify_self=1 unless the URL has format=
      --start-at UNIXTIME  start sending (warmup, then the measured window) at this wall
                           clock time instead of after the settle phase: generator
                           processes given the same time measure the same window
      --idle               open the connections, hold them for the duration, report
                           connect times (and the server's RSS with --server-pid)
      --loops N            client event loops (default 1)
      --connect-concurrency N  connections opening at once (default 256)
      --server-pid PID     sample this server's CPU time over the measured window and RSS
      --plot FILE.svg      write the latency histogram as SVG
      --json               print one JSON line on stdout (the report goes to stderr)
      --quiet              no progress lines
      --version            print the version and the commit it was built from
      -h, --help           this text

    Progress goes to stderr once a second. Exit codes: 0 done, 1 the run failed (no
    connection opened), 64 bad usage.
    """

  static func run(_ argv: [String]) -> Int32 {
    let args: Arguments
    do {
      args = try Arguments(
        argv,
        valued: [
          "connections", "senders", "rate", "window", "size", "duration", "warmup", "protocol", "loops",
          "plot", "server-pid", "connect-concurrency", "start-at",
        ],
        booleans: ["idle", "json", "quiet", "help"])
    } catch {
      return Usage.fail("bench", "\(error)")
    }
    if let code = args.helpOrVersion(help) { return code }
    guard !args.positional.isEmpty else {
      return Usage.fail("bench", "needs a URL")
    }
    var config: BenchConfiguration
    do {
      config = BenchConfiguration(target: try BenchConfiguration.Target(args.positional[0]))
      for url in args.positional.dropFirst() { config.extraTargets.append(try BenchConfiguration.Target(url)) }
      if let v = try args.int("connections", in: 1...1_000_000) { config.connections = v }
      if let v = try args.int("senders", in: 0...1_000_000) { config.senders = v }
      if let v = try args.double("start-at") { config.startAt = v }
      if let v = try args.double("rate") { config.rate = v }
      if let v = try args.int("window", in: 1...1_000_000) { config.window = v }
      if let v = try args.int("size", in: 1...(16 << 20)) { config.size = v }
      if let v = try args.double("duration") { config.duration = v }
      if let v = try args.double("warmup") { config.warmup = v }
      if let v = try args.int("loops", in: 1...256) { config.loops = v }
      if let v = try args.int("connect-concurrency", in: 1...100_000) { config.connectConcurrency = v }
      if let v = try args.int("server-pid", in: 1...Int(Int32.max)) { config.serverPID = Int32(v) }
      if let p = args.value("protocol") {
        guard let wire = BenchConfiguration.WireProtocol(rawValue: p) else {
          throw Arguments.UsageError(description: "--protocol must be json, text or line, not '\(p)'")
        }
        config.wireProtocol = wire
      }
      config.idle = args.flag("idle")
      try config.validate()
    } catch {
      return Usage.fail("bench", "\(error)")
    }
    let json = args.flag("json")
    let quiet = args.flag("quiet")
    let result: BenchResult
    do {
      result = try BenchRunner.run(config) { line in
        if !quiet { Output.error(line) }
      }
    } catch {
      Output.error("switchboard bench: \(error)")
      return ExitCode.failure
    }
    if json {
      Output.error(result.textReport())
      Output.print(result.jsonLine())
    } else {
      Output.print(result.textReport())
    }
    if let plot = args.value("plot") {
      do {
        try Data(result.svgHistogram().utf8).write(to: URL(fileURLWithPath: plot))
      } catch {
        Output.error("switchboard bench: cannot write \(plot): \(error)")
      }
    }
    return result.opened == 0 ? ExitCode.failure : ExitCode.ok
  }
}
