import Foundation
import SwitchboardHTTP
import SwitchboardIO
import SwitchboardTestSupport
import SwitchboardWebSocket

/// A blocking WebSocket client for tests: a `LineClient` socket under the project's
/// client-role codec. (Independent peers — python `websockets`, node `ws`, Chromium —
/// are driven by the scripts in Tests/peers.)
final class WebSocketTestClient {
  let socket: LineClient
  private var connection = WebSocketConnection(role: .client)
  private var pending: [WebSocketAction] = []
  /// The close code the server sent, once it did.
  private(set) var closeCode: WebSocketCloseCode?

  /// Connects and upgrades; from `source` (an address on this host, port 0) when given.
  init(_ address: SocketAddress, path: String = "/", from source: SocketAddress? = nil, receiveBuffer: Int32? = nil)
    throws
  {
    socket = try LineClient(address, from: source, receiveBuffer: receiveBuffer)
    let request = WebSocketHandshake.clientRequest(host: "127.0.0.1:\(address.port)", path: path)
    try socket.send(request.requestBytes)
    var parser = HTTPResponseParser()
    let deadline = ContinuousClock.now + .seconds(5)
    while true {
      let chunk = socket.takeBuffered()
      parser.append(chunk)
      if let head = try parser.next() {
        guard head.status == 101 else { throw TestFailure("upgrade refused: \(head.status)") }
        _ = try request.validate(head)
        let rest = parser.takeRemainingBytes()
        if !rest.isEmpty { pending += connection.receive(rest) }
        return
      }
      guard ContinuousClock.now < deadline else { throw TestFailure("no handshake response") }
      socket.fill(timeout: .milliseconds(100))
    }
  }

  func send(text: String) throws {
    guard let frame = connection.sendText(text) else { throw TestFailure("closed") }
    try socket.send(frame)
  }

  /// Text frames, all in one write (so that the server reads them together).
  func send(texts: [String]) throws {
    var bytes: [UInt8] = []
    for text in texts {
      guard let frame = connection.sendText(text) else { throw TestFailure("closed") }
      bytes += frame
    }
    try socket.send(bytes)
  }

  func send(binary: [UInt8]) throws {
    guard let frame = connection.sendBinary(binary) else { throw TestFailure("closed") }
    try socket.send(frame)
  }

  /// Raw bytes (for malformed-frame tests).
  func sendRaw(_ bytes: [UInt8]) throws { try socket.send(bytes) }

  /// The next data message or close, within `timeout`.
  func next(timeout: Duration = .seconds(5)) throws -> WebSocketAction {
    let deadline = ContinuousClock.now + timeout
    while true {
      while let action = pending.first {
        pending.removeFirst()
        switch action {
        case .send(let bytes): try? socket.send(bytes)
        case .ping, .pong: continue
        case .close(let code, _):
          closeCode = code
          return action
        default: return action
        }
      }
      guard ContinuousClock.now < deadline else { throw TestFailure("no WebSocket message within \(timeout)") }
      if socket.fill(timeout: .milliseconds(100)) {
        pending += connection.receive(socket.takeBuffered())
      } else if socket.closedByPeer {
        throw TestFailure("connection closed without a close frame")
      }
    }
  }

  /// The next text message.
  func nextText(timeout: Duration = .seconds(5)) throws -> String {
    let action = try next(timeout: timeout)
    guard case .text(let text) = action else { throw TestFailure("expected text, got \(action)") }
    return text
  }

  /// Skips messages until the server's close frame; returns its code.
  func nextClose(timeout: Duration = .seconds(5)) throws -> WebSocketCloseCode? {
    let deadline = ContinuousClock.now + timeout
    while true {
      let left = deadline - ContinuousClock.now
      guard left > .zero else { throw TestFailure("no close frame") }
      if case .close(let code, _) = try next(timeout: left) { return code }
    }
  }

  /// The next JSON frame of `type` that satisfies `match`, skipping others.
  func nextJSON(
    type: String, timeout: Duration = .seconds(5), where match: ([String: Any]) -> Bool = { _ in true }
  ) throws -> [String: Any] {
    let deadline = ContinuousClock.now + timeout
    var skipped: [String] = []
    while true {
      let left = deadline - ContinuousClock.now
      guard left > .zero else { throw TestFailure("no \(type) frame; skipped \(skipped)") }
      let text = try nextText(timeout: left)
      if let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
        object["type"] as? String == type, match(object)
      {
        return object
      }
      skipped.append(text)
    }
  }
}

extension LineClient {
  /// Takes everything buffered so far.
  func takeBuffered() -> [UInt8] {
    defer { clearBuffer() }
    return bufferedBytes
  }
}
