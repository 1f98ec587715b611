#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension BenchResult {
  /// The latency histogram as a standalone SVG: bars on a logarithmic time axis, with
  /// p50, p99 and p99.9 marked.
  public func svgHistogram(title: String? = nil) -> String {
    let width = 800.0, height = 360.0
    let left = 60.0, right = 20.0, top = 40.0, bottom = 50.0
    let plotW = width - left - right, plotH = height - top - bottom
    let rows = latency.buckets(boundaries: LatencyHistogram.logBoundaries(perDecade: 20))
    var svg = """
      <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
      viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="12">
      <rect width="100%" height="100%" fill="white"/>

      """
    let heading = title ?? "latency: \(config.connections) connections, \(config.senders) senders, \(config.rate > 0 ? Format.count(config.rate) + " msg/s" : "max rate"), \(config.wireProtocol.rawValue)"
    svg += "<text x=\"\(left)\" y=\"22\" font-size=\"14\">\(escape(heading))</text>\n"
    guard let first = rows.first, let last = rows.last, let peak = rows.map(\.count).max(), peak > 0 else {
      return svg + "<text x=\"\(left)\" y=\"\(top + 20)\">no messages delivered</text>\n</svg>\n"
    }
    let lo = log10(Double(max(first.low, 1)))
    let hi = max(log10(Double(max(last.high, 2))), lo + 0.1)
    func x(_ ns: Double) -> Double { left + (log10(max(ns, 1)) - lo) / (hi - lo) * plotW }
    // Axes.
    svg += "<line x1=\"\(left)\" y1=\"\(top + plotH)\" x2=\"\(left + plotW)\" y2=\"\(top + plotH)\" stroke=\"black\"/>\n"
    svg += "<line x1=\"\(left)\" y1=\"\(top)\" x2=\"\(left)\" y2=\"\(top + plotH)\" stroke=\"black\"/>\n"
    for row in rows where row.count > 0 {
      let x0 = x(Double(row.low)), x1 = x(Double(row.high))
      let h = Double(row.count) / Double(peak) * plotH
      svg += "<rect x=\"\(f(x0))\" y=\"\(f(top + plotH - h))\" width=\"\(f(max(x1 - x0 - 0.5, 0.5)))\" height=\"\(f(h))\" fill=\"#4a7ebb\"/>\n"
    }
    // Decade ticks: 1 µs, 10 µs, … labelled.
    var decade = pow(10, floor(lo))
    while log10(decade) <= hi {
      if log10(decade) >= lo {
        let tx = x(decade)
        svg += "<line x1=\"\(f(tx))\" y1=\"\(top + plotH)\" x2=\"\(f(tx))\" y2=\"\(top + plotH + 5)\" stroke=\"black\"/>\n"
        svg += "<text x=\"\(f(tx))\" y=\"\(top + plotH + 18)\" text-anchor=\"middle\">\(escape(Format.micros(UInt64(decade))))</text>\n"
      }
      decade *= 10
    }
    svg += "<text x=\"\(left + plotW / 2)\" y=\"\(height - 10)\" text-anchor=\"middle\">send-to-receipt latency (log scale)</text>\n"
    svg += "<text x=\"15\" y=\"\(top + plotH / 2)\" transform=\"rotate(-90 15 \(top + plotH / 2))\" text-anchor=\"middle\">deliveries</text>\n"
    svg += "<text x=\"\(left - 5)\" y=\"\(top + 4)\" text-anchor=\"end\">\(peak)</text>\n"
    let marks: [(String, Double, String)] = [("p50", 0.5, "#2a9d3a"), ("p99", 0.99, "#e08a00"), ("p99.9", 0.999, "#c0392b")]
    for (i, mark) in marks.enumerated() {
      let v = Double(latency.value(atQuantile: mark.1))
      let mx = x(v)
      svg += "<line x1=\"\(f(mx))\" y1=\"\(top)\" x2=\"\(f(mx))\" y2=\"\(top + plotH)\" stroke=\"\(mark.2)\" stroke-dasharray=\"4 3\"/>\n"
      svg += "<text x=\"\(f(mx + 3))\" y=\"\(top + 12 + Double(i) * 14)\" fill=\"\(mark.2)\">\(mark.0) \(escape(Format.micros(UInt64(v))))</text>\n"
    }
    return svg + "</svg>\n"
  }

  private func f(_ v: Double) -> String { Format.fixed(v, 1) }

  private func escape(_ s: String) -> String {
    var out = ""
    for ch in s {
      switch ch {
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "&": out += "&amp;"
      case "\"": out += "&quot;"
      default: out.append(ch)
      }
    }
    return out
  }
}
