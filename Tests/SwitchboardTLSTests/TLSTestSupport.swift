import Dispatch
import Foundation
import SwitchboardIO
import SwitchboardTLS
import Synchronization
import Testing
import SwitchboardTestSupport

// Helpers for the TLS tests: a peer nobody here wrote (a Python `ssl` server) and a
// delegate that records what a TLSConnection reports. Deadlines, loop hops, child
// processes and the test PKI come from SwitchboardTestSupport.

// MARK: - A Python TLS server

/// Python's `ssl` module (OpenSSL underneath, but none of our code) serving TLS on
/// 127.0.0.1 with a kernel-chosen port. It logs events on stdout:
/// `HANDSHAKE-OK`, `HANDSHAKE-FAILED …`, `CLOSE-NOTIFY` (the client's close_notify
/// arrived), `RAGGED-EOF` (TCP ended without one), `UNWRAP-OK`, `UNWRAP-FAILED`.
final class PythonTLSServer: Sendable {
  /// What the server does with each connection.
  enum Mode: String {
    /// Echo every byte until the client's close_notify, then answer with its own.
    case echo
    /// Send `hello\n`, then close_notify, then wait for the client's.
    case greetThenClose = "greet-close"
    /// Send `hello\n`, then end TCP without close_notify.
    case greetThenAbort = "greet-abort"
  }

  static let script = #"""
    import socket, ssl, sys, threading
    cert, key, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    def log(*words):
        print(*words, flush=True)
    log("PORT", listener.getsockname()[1])
    def serve(raw):
        try:
            conn = ctx.wrap_socket(raw, server_side=True, suppress_ragged_eofs=False)
        except Exception as e:
            log("HANDSHAKE-FAILED", type(e).__name__, str(e).replace("\n", " "))
            raw.close()
            return
        log("HANDSHAKE-OK", conn.version())
        try:
            if mode == "echo":
                while True:
                    data = conn.recv(65536)
                    if not data:
                        log("CLOSE-NOTIFY")
                        break
                    conn.sendall(data)
            elif mode == "greet-close":
                conn.sendall(b"hello\n")
            elif mode == "greet-abort":
                conn.sendall(b"hello\n")
                conn.shutdown(socket.SHUT_RDWR)
                conn.close()
                log("ABORTED")
                return
        except ssl.SSLEOFError:
            log("RAGGED-EOF")
            conn.close()
            return
        except Exception as e:
            log("ERROR", type(e).__name__, e)
            conn.close()
            return
        try:
            conn.unwrap()
            log("UNWRAP-OK")
        except Exception as e:
            log("UNWRAP-FAILED", type(e).__name__, e)
        conn.close()
    while True:
        client, _ = listener.accept()
        threading.Thread(target=serve, args=(client,), daemon=True).start()
    """#

  let process: ChildProcess
  let address: SocketAddress

  /// Starts the server with `certificate` (chain) and `key`, waiting for its port.
  init(pki: TestPKI, certificate: String, key: String, mode: Mode = .echo) throws {
    let scriptPath = pki.path("tls_server.py")
    try Self.script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
    process = try ChildProcess(
      command: ["python3", scriptPath, certificate, key, mode.rawValue], directory: pki.directory)
    try process.waitForOutput("\n")
    let firstLine = process.stdout.split(separator: "\n")[0]
    guard firstLine.hasPrefix("PORT "), let port = Int(firstLine.dropFirst(5)) else {
      process.stop()
      throw TestFailure("unexpected first line from the python TLS server: \(firstLine)")
    }
    address = try SocketAddress(host: "127.0.0.1", port: port)
  }

  /// Lines logged so far (after the port line).
  var log: [String] { process.stdout.split(separator: "\n").dropFirst().map(String.init) }

  func stop() { process.stop() }
}

// MARK: - Recording TLSConnection events

/// Everything one TLSConnection reported, readable from any thread.
final class TLSConnectionLog: Sendable {
  struct State: Sendable {
    var received: [UInt8] = []
    var handshakes = 0
    var eofCount = 0
    var closed = false
    var closeError: TLSError?
  }
  let state = Locked(State())
  var received: [UInt8] { state.value.received }
  var eofCount: Int { state.value.eofCount }
  var closed: Bool { state.value.closed }
  var closeError: TLSError? { state.value.closeError }
}

/// A delegate that records into a ``TLSConnectionLog`` and can echo; it keeps itself alive
/// until the connection closes.
final class RecordingTLSDelegate: TLSConnectionDelegate {
  let log: TLSConnectionLog
  var echo = false
  /// What to do on the peer's close_notify; `nil` closes like the protocol's default.
  var onEOF: ((TLSConnection) -> Void)?
  private var keepAlive: RecordingTLSDelegate?

  init(log: TLSConnectionLog) {
    self.log = log
    keepAlive = self
  }

  func connectionDidHandshake(_ connection: TLSConnection) {
    log.state.withLock { $0.handshakes += 1 }
  }

  func connection(_ connection: TLSConnection, didRead bytes: UnsafeRawBufferPointer) {
    log.state.withLock { $0.received.append(contentsOf: bytes) }
    if echo { connection.write(bytes) }
  }

  func connectionDidReadEOF(_ connection: TLSConnection) {
    log.state.withLock { $0.eofCount += 1 }
    if let onEOF { onEOF(connection) } else { connection.close() }
  }

  func connection(_ connection: TLSConnection, didCloseWith error: TLSError?) {
    log.state.withLock {
      $0.closed = true
      $0.closeError = error
    }
    keepAlive = nil
  }
}

/// A client connection made by ``connectClient(to:serverName:configuration:on:)``.
struct ConnectedClient: Sendable {
  let connection: LoopBound<TLSConnection>
  let log: TLSConnectionLog

  /// Writes `bytes` on the connection's loop.
  func write(_ bytes: [UInt8]) throws {
    let connection = self.connection
    try onLoop(connection.loop) { connection.value.write(bytes) }
  }

  func close() throws {
    let connection = self.connection
    try onLoop(connection.loop) { connection.value.close() }
  }
}

/// Runs `TLSConnection.connect` on `loop` and waits for its completion. On success the
/// connection gets a ``RecordingTLSDelegate``.
func connectClient(
  to address: SocketAddress, serverName: String? = nil, configuration: TLSConfiguration, on loop: EventLoop,
  configure: @escaping @Sendable (RecordingTLSDelegate) -> Void = { _ in }
) throws -> Result<ConnectedClient, TLSError> {
  let outcome = Locked<Result<ConnectedClient, TLSError>?>(nil)
  loop.execute {
    TLSConnection.connect(to: address, serverName: serverName, configuration: configuration, on: loop) {
      result in
      switch result {
      case .success(let connection):
        let log = TLSConnectionLog()
        let delegate = RecordingTLSDelegate(log: log)
        configure(delegate)
        connection.delegate = delegate
        outcome.withLock {
          $0 = .success(ConnectedClient(connection: LoopBound(connection, on: loop), log: log))
        }
      case .failure(let error):
        outcome.withLock { $0 = .failure(error) }
      }
    }
  }
  guard eventually(timeout: .seconds(15), { outcome.value != nil }) else {
    throw TestFailure("TLS connect to \(address) did not complete")
  }
  return outcome.value!
}

extension Result {
  /// The failure, or `nil` on success.
  var failure: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
}
