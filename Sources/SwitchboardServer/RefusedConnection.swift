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
final class RefusedConnection: TCPConnectionDelegate {
  /// Which listener the connection came in on.
  enum Listener { case line, http, tls }

  /// How long a refused peer has to take its answer.
  static let graceTime: Duration = .seconds(2)

  private let connection: TCPConnection
  private let listener: Listener
  private let message: String
  private var parser = HTTPRequestParser()
  private var answered = false
  private var timer: Scheduled?

  private init(connection: TCPConnection, listener: Listener, message: String) {
    self.connection = connection
    self.listener = listener
    self.message = message
  }

  /// Answers `connection` (the connection holds the delegate, so nothing else must).
  static func start(_ connection: TCPConnection, on listener: Listener, message: String, loop: EventLoop) {
    guard listener != .tls else {
      connection.close()
      return
    }
    let refused = RefusedConnection(connection: connection, listener: listener, message: message)
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
    var response = HTTPResponse.text(503, message + "\n")
    response.headers.replaceOrAdd(name: "Connection", value: "close")
    response.headers.replaceOrAdd(name: "Retry-After", value: "10")
    connection.write(response.encode())
    connection.shutdownOutput()
  }

  func connectionDidReadEOF(_ connection: TCPConnection) {
    connection.close()
  }

  func connection(_ connection: TCPConnection, didCloseWith error: IOError?) {
    timer?.cancel()
  }
}
