/// Tells an HTTP request from chat on the line port by its first line, so a browser that
/// opens `http://host:8080/` gets a page instead of having its headers broadcast.
enum HTTPSniffer {
  enum Verdict { case http, notHTTP, needMore }

  private static let methods: [[UInt8]] = [
    "GET ", "HEAD ", "POST ", "PUT ", "DELETE ", "OPTIONS ", "PATCH ", "CONNECT ", "TRACE ",
  ].map { Array($0.utf8) }

  /// Classifies the first bytes of a connection.
  static func classify(_ bytes: [UInt8]) -> Verdict {
    let candidates = methods.filter { m in
      zip(m, bytes).allSatisfy { $0 == $1 }
    }
    guard !candidates.isEmpty else { return .notHTTP }
    guard candidates.contains(where: { bytes.count >= $0.count }) else { return .needMore }
    guard let newline = bytes.firstIndex(of: 0x0A) else {
      return bytes.count > 8192 ? .notHTTP : .needMore
    }
    var line = bytes[..<newline]
    if line.last == 0x0D { line = line.dropLast() }
    let tail = Array(line.suffix(9))
    return tail == Array(" HTTP/1.1".utf8) || tail == Array(" HTTP/1.0".utf8) ? .http : .notHTTP
  }
}
