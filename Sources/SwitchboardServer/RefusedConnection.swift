import SwitchboardHTTP
import SwitchboardIO

/// A connection over a connection cap: it gets its answer, then is closed. The answer is
/// sent before the close and the peer's own bytes are read (not left unread, which would
/// make the kernel reset the connection and could discard the answer on the way).
///
/// - Line port: `! too many connections (…)`, then a half-close; closed at the peer's EOF.
/// - HTTP port: once the request head arrived (an upgrade too), `503` with a text body.
/// - TLS ports: closed at once (a plaintext answer would mean nothing to a TLS client).
/// Either way it is closed after ``graceTime`` at the latest.
///
/// At most ``maxLingering`` refused connections wait out their grace time at once (a gauge
/// in `/metrics`); past that a refused connection gets its answer written at once and is
/// closed at once (counted), so a connect loop that never reads cannot pile up descriptors
/// beyond the caps plus this many and run the process out of them.
final class RefusedConnection: TCPConnectionDelegate {
  /// Which listener the connection came in on.
  enum Listener { case line, http, tls }

  /// How long a refused peer has to take its answer.
  /// Two seconds: a peer across a slow link still reads its answer, and with
  /// ``maxLingering`` the descriptors this holds are bounded whatever the connect rate.
  static let graceTime: Duration = .seconds(2)

  /// Refused connections that may wait out ``graceTime`` at once, server-wide. Small, so
  /// that with `--max-connections` at its default (the open-file limit less 64) they fit in
  /// the 64 descriptors kept back for listeners, the store and logs.
  static let maxLingering = 32

  private let connection: TCPConnection
  private let listener: Listener
  private let message: String
  private let metrics: LimitMetrics
  private var parser = HTTPRequestParser()
  private var answered = false
  private var timer: Scheduled?

  private init(connection: TCPConnection, listener: Listener, message: String, metrics: LimitMetrics) {
    self.connection = connection
    self.listener = listener
    self.message = message
    self.metrics = metrics
  }

  /// Answers `connection` (the connection holds the delegate, so nothing else must).
  static func start(
    _ connection: TCPConnection, on listener: Listener, message: String, loop: EventLoop,
    metrics: LimitMetrics
  ) {
    guard listener != .tls else {
      connection.close()
      return
    }
    guard metrics.refusedLingering.add(1, ordering: .relaxed).newValue <= maxLingering else {
      metrics.refusedLingering.subtract(1, ordering: .relaxed)
      metrics.refusedClosedAtOnce.add(1, ordering: .relaxed)
      // The answer goes first; a peer that already sent bytes may get a reset instead.
      connection.write(listener == .line ? Array("! \(message)\n".utf8) : response(message).encode())
      connection.close()
      return
    }
    let refused = RefusedConnection(
      connection: connection, listener: listener, message: message, metrics: metrics)
    connection.delegate = refused
    refused.timer = loop.scheduleLocal(after: graceTime) { [weak refused] in refused?.connection.close() }
    if listener == .line {
      refused.answered = true
      connection.write(string: "! \(message)\n")
      connection.shutdownOutput()
    }
  }

  func connection(_ connection: TCPConnection, didRead bytes: UnsafeRawBufferPointer) {
    guard !answered else { return }
    parser.append(bytes)
    let complete: Bool
    do {
      complete = try parser.next() != nil
    } catch {
      complete = true
    }
    guard complete else { return }
    answered = true
    connection.write(Self.response(message).encode())
    connection.shutdownOutput()
  }

  /// The HTTP answer: `503` with the reason, `Retry-After: 10`, `Connection: close`.
  private static func response(_ message: String) -> HTTPResponse {
    var response = HTTPResponse.text(503, message + "\n")
    response.headers.replaceOrAdd(name: "Connection", value: "close")
    response.headers.replaceOrAdd(name: "Retry-After", value: "10")
    return response
  }

  func connectionDidReadEOF(_ connection: TCPConnection) {
    connection.close()
  }

  func connection(_ connection: TCPConnection, didCloseWith error: IOError?) {
    timer?.cancel()
    metrics.refusedLingering.subtract(1, ordering: .relaxed)
  }
}
