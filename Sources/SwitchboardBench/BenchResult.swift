/// What one benchmark run measured.
public struct BenchResult: Sendable {
  public let config: BenchConfiguration
  /// Connections opened and failed, and open ones the server closed during the run.
  public var opened = 0
  public var failed = 0
  public var closedDuringRun = 0
  /// Seconds from the first connect to the last connection open.
  public var connectSeconds: Double = 0
  /// Seconds waited after connecting for join traffic to stop.
  public var settleSeconds: Double = 0
  /// Per-connection connect time (TCP connect + WebSocket upgrade), ns.
  public var connectTimes = LatencyHistogram()
  /// Messages sent with a send time inside the measured window.
  public var sent = 0
  /// Receipts of those messages, summed over recipients.
  public var delivered = 0
  /// Send-to-receipt latency of those receipts, ns.
  public var latency = LatencyHistogram()
  /// The generator's CPU time over the measured window.
  public var clientCPUSeconds: Double?
  /// The server's CPU time over the measured window (with `--server-pid`).
  public var serverCPUSeconds: Double?
  /// The part of ``serverCPUSeconds`` the server spent in user space, running its own code
  /// (the rest is the kernel's work for it: its sends, receives and waits).
  public var serverUserCPUSeconds: Double?
  public var serverRSSBeforeKiB: Int?
  /// Server RSS at the end of the measured window (or of the hold with `--idle`).
  public var serverRSSKiB: Int?
  /// Server peak RSS (VmHWM).
  public var serverHWMKiB: Int?
  /// The server's anonymous resident memory (`RssAnon`: heap and stacks, without the
  /// binary's pages, which a fresh server faults in with its first connections) before the
  /// run and at the end of the hold (`--idle`).
  public var serverAnonBeforeKiB: Int?
  public var serverAnonKiB: Int?
  /// The descriptors the server holds before the run and at the end of the hold (`--idle`).
  public var serverDescriptorsBefore: Int?
  public var serverDescriptors: Int?
  /// Distinct problems seen, most frequent first (`"3× connect: …"`).
  public var notes: [String] = []

  public init(config: BenchConfiguration) { self.config = config }

  /// Delivered messages per second of the measured window.
  public var deliveredPerSecond: Double { Double(delivered) / config.duration }
  /// delivered / (sent × expected recipients).
  public var deliveryRatio: Double {
    let expected = Double(sent) * Double(config.expectedRecipients)
    return expected > 0 ? Double(delivered) / expected : 0
  }
  /// Server CPU µs per delivered message.
  public var serverMicrosPerDelivery: Double? {
    guard let s = serverCPUSeconds, delivered > 0 else { return nil }
    return s * 1e6 / Double(delivered)
  }
  /// The user-space part of ``serverMicrosPerDelivery``: the server's own code per
  /// delivered message, without the kernel's work for its sends.
  public var serverUserMicrosPerDelivery: Double? {
    guard let s = serverUserCPUSeconds, delivered > 0 else { return nil }
    return s * 1e6 / Double(delivered)
  }
  /// Server RSS growth per connection (KiB) while holding them.
  public var serverKiBPerConnection: Double? {
    guard let after = serverRSSKiB, let before = serverRSSBeforeKiB, opened > 0 else { return nil }
    return Double(after - before) / Double(opened)
  }
  /// Descriptors the server opened per connection while holding them (`--idle`): 1 for a
  /// socket it serves directly.
  public var serverDescriptorsPerConnection: Double? {
    guard let after = serverDescriptors, let before = serverDescriptorsBefore, opened > 0 else { return nil }
    return Double(after - before) / Double(opened)
  }
  /// Server anonymous-memory growth per connection (KiB) while holding them (`--idle`).
  public var serverAnonKiBPerConnection: Double? {
    guard let after = serverAnonKiB, let before = serverAnonBeforeKiB, opened > 0 else { return nil }
    return Double(after - before) / Double(opened)
  }

  // MARK: Text report

  /// The human-readable report, histogram included.
  public func textReport() -> String {
    let c = config
    var lines: [String] = []
    var head = "switchboard bench \(c.target.scheme != "tcp" ? "\(c.target.scheme)://\(c.target.host):\(c.target.port)\(c.requestPath)" : c.target.description)"
    if !c.extraTargets.isEmpty { head += " and \(c.extraTargets.count) more" }
    head += "  protocol \(c.wireProtocol.rawValue)  connections \(c.connections)"
    if c.receivesOnly { head += "  (receive only)" }
    if !c.idle {
      head += "  senders \(c.senders)  rate \(c.rate > 0 ? Format.count(c.rate) + "/s" : "max (window \(c.effectiveWindow))")  size \(c.size) B"
    }
    lines.append(head)
    lines.append(
      "connect      \(opened) open, \(failed) failed in \(Format.fixed(connectSeconds, 2)) s;"
        + " per connection p50 \(Format.millis(connectTimes.value(atQuantile: 0.5)))"
        + " p99 \(Format.millis(connectTimes.value(atQuantile: 0.99)))"
        + " max \(Format.millis(connectTimes.max == 0 ? 0 : connectTimes.max))")
    if settleSeconds > 0.5 {
      lines.append("settle       \(Format.fixed(settleSeconds, 2)) s until the join traffic stopped")
    }
    if closedDuringRun > 0 { lines.append("closed       \(closedDuringRun) connections closed by the server during the run") }
    if c.idle {
      lines.append("held         \(opened) connections for \(Format.fixed(c.duration, 1)) s")
    } else {
      lines.append("sent         \(sent) messages in \(Format.fixed(c.duration, 1)) s (\(Format.count(Double(sent) / c.duration))/s)")
      lines.append(
        "delivered    \(delivered) (\(Format.count(deliveredPerSecond)) msg/s), ratio \(Format.fixed(deliveryRatio, 4))"
          + " of \(c.expectedRecipients) recipients each")
      let l = latency
      lines.append(
        "latency      p50 \(Format.micros(l.value(atQuantile: 0.5))) p90 \(Format.micros(l.value(atQuantile: 0.9)))"
          + " p99 \(Format.micros(l.value(atQuantile: 0.99))) p99.9 \(Format.micros(l.value(atQuantile: 0.999)))"
          + " max \(Format.micros(l.max)) mean \(Format.micros(UInt64(l.mean)))")
      if let cpu = clientCPUSeconds {
        var s = "generator    CPU \(Format.fixed(cpu, 2)) s (\(Format.fixed(cpu / c.duration * 100, 0)) % of a core)"
        if delivered > 0 { s += ", \(Format.fixed(cpu * 1e6 / Double(delivered), 2)) µs per delivered message" }
        lines.append(s)
      }
      if let cpu = serverCPUSeconds {
        var s = "server       CPU \(Format.fixed(cpu, 2)) s (\(Format.fixed(cpu / c.duration * 100, 0)) % of a core)"
        if let per = serverMicrosPerDelivery { s += ", \(Format.fixed(per, 2)) µs per delivered message" }
        if let user = serverUserCPUSeconds {
          s += "; user \(Format.fixed(user, 2)) s"
          if let per = serverUserMicrosPerDelivery { s += ", \(Format.fixed(per, 3)) µs per delivered message" }
        }
        lines.append(s)
      }
    }
    if serverRSSKiB != nil || serverHWMKiB != nil {
      var s = "server RSS   \(serverRSSKiB.map { "\($0) KiB" } ?? "?") (peak \(serverHWMKiB.map { "\($0) KiB" } ?? "?"))"
      if c.idle, let per = serverKiBPerConnection { s += ", \(Format.fixed(per, 2)) KiB per connection" }
      if c.idle, let per = serverDescriptorsPerConnection {
        s += ", \(Format.fixed(per, 2)) descriptors per connection"
      }
      lines.append(s)
    }
    for note in notes.prefix(5) { lines.append("note         \(note)") }
    if !c.idle && latency.count > 0 {
      lines.append("")
      lines.append(textHistogram())
    }
    return lines.joined(separator: "\n")
  }

  /// The latency histogram as text rows on 1-2-5 boundaries.
  public func textHistogram(width: Int = 50) -> String {
    let rows = latency.buckets(boundaries: LatencyHistogram.roundBoundaries)
    guard let peak = rows.map(\.count).max(), peak > 0 else { return "" }
    var out = ["latency histogram (count per bucket)"]
    var cumulative: UInt64 = 0
    for row in rows {
      cumulative += row.count
      let bar = String(repeating: "#", count: Int((Double(row.count) / Double(peak) * Double(width)).rounded(.up)))
      let label = "\(Format.micros(row.low).padding(9, left: true)) – \(Format.micros(row.high).padding(9))"
      let pct = Format.fixed(Double(cumulative) / Double(latency.count) * 100, 2)
      out.append("\(label) \(String(row.count).padding(10, left: true)) \(pct.padding(6, left: true))% \(bar)")
    }
    return out.joined(separator: "\n")
  }

  // MARK: JSON

  /// One line of JSON with every number of the report.
  public func jsonLine() -> String {
    let c = config
    var f: [(String, String)] = [
      ("url", Format.quote(c.target.scheme != "tcp" ? "\(c.target.scheme)://\(c.target.host):\(c.target.port)\(c.requestPath)" : c.target.description)),
      ("protocol", Format.quote(c.wireProtocol.rawValue)),
      ("connections", "\(c.connections)"), ("senders", "\(c.idle ? 0 : c.senders)"),
      ("rate", Format.number(c.rate)), ("window", "\(c.effectiveWindow)"), ("size", "\(c.size)"),
      ("duration", Format.number(c.duration)), ("idle", c.idle ? "true" : "false"),
      ("opened", "\(opened)"), ("failed", "\(failed)"), ("closed_during_run", "\(closedDuringRun)"),
      ("connect_seconds", Format.number(connectSeconds)), ("settle_seconds", Format.number(settleSeconds)),
      ("connect_ms", "{\"p50\":\(Format.number(Double(connectTimes.value(atQuantile: 0.5)) / 1e6)),\"p99\":\(Format.number(Double(connectTimes.value(atQuantile: 0.99)) / 1e6)),\"max\":\(Format.number(Double(connectTimes.max) / 1e6))}"),
      ("sent", "\(sent)"), ("delivered", "\(delivered)"),
      ("expected_recipients", "\(c.expectedRecipients)"),
      ("delivered_per_sec", Format.number(deliveredPerSecond)),
      ("delivery_ratio", Format.number(deliveryRatio)),
    ]
    let l = latency
    f.append(
      ("latency_us", "{" + [("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p999", 0.999)].map {
        "\"\($0.0)\":\(Format.number(Double(l.value(atQuantile: $0.1)) / 1e3))"
      }.joined(separator: ",") + ",\"max\":\(Format.number(Double(l.max) / 1e3)),\"mean\":\(Format.number(l.mean / 1e3))}"))
    func opt(_ v: Double?) -> String { v.map(Format.number) ?? "null" }
    func opt(_ v: Int?) -> String { v.map { "\($0)" } ?? "null" }
    f.append(("client_cpu_s", opt(clientCPUSeconds)))
    f.append(("server_cpu_s", opt(serverCPUSeconds)))
    f.append(("server_cpu_us_per_msg", opt(serverMicrosPerDelivery)))
    f.append(("server_user_cpu_s", opt(serverUserCPUSeconds)))
    f.append(("server_user_cpu_us_per_msg", opt(serverUserMicrosPerDelivery)))
    f.append(("server_rss_before_kib", opt(serverRSSBeforeKiB)))
    f.append(("server_rss_kib", opt(serverRSSKiB)))
    f.append(("server_hwm_kib", opt(serverHWMKiB)))
    f.append(("server_kib_per_connection", opt(serverKiBPerConnection)))
    f.append(("server_anon_kib_per_connection", opt(serverAnonKiBPerConnection)))
    f.append(("server_fds_per_connection", opt(serverDescriptorsPerConnection)))
    f.append(("notes", "[" + notes.prefix(5).map(Format.quote).joined(separator: ",") + "]"))
    return "{" + f.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
  }
}

extension String {
  /// Padded with spaces to `width` characters (on the left with `left`).
  func padding(_ width: Int, left: Bool = false) -> String {
    let pad = String(repeating: " ", count: max(0, width - count))
    return left ? pad + self : self + pad
  }
}
