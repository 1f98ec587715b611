import SwitchboardIO
import SwitchboardWire

/// The socket side of ``TransportDatagram``, on its loop.
final class DatagramChannel: TransportChannel, UDPSocketDelegate {
  static let sendFailure = "socket closed or send buffer full"
  /// More than a datagram can hold: no line in one is too long.
  private static let maxLineLength = 1 << 16
  private let loop: EventLoop
  private let server: SocketAddress
  private let inputs: AsyncStream<TransportInput>.Continuation
  private var socket: UDPSocket?
  private var completion: CheckedContinuation<Result<Void, ChatClientError>, Never>?
  /// Resends the handshake's datagram until the address is accepted, for the channel's life.
  private var retransmitTimer: Scheduled?
  /// Ends the connect attempt (until it succeeds).
  private var deadlineTimer: Scheduled?
  private var finished = false
  /// The address proof (``DatagramHandshake``), from the first datagram on.
  private var handshake = DatagramHandshake(hello: [])

  init(loop: EventLoop, server: SocketAddress, inputs: AsyncStream<TransportInput>.Continuation) {
    self.loop = loop
    self.server = server
    self.inputs = inputs
  }

  func start(hello: [String], timeout: Duration, completion: CheckedContinuation<Result<Void, ChatClientError>, Never>) {
    let wildcard = (try? SocketAddress(host: server.ipAddress.contains(":") ? "::" : "0.0.0.0", port: 0))!
    do {
      let socket = try UDPSocket(bindingTo: wildcard, loop: loop)
      socket.delegate = self
      self.socket = socket
    } catch {
      finish(reason: "\(error)")
      completion.resume(returning: .failure(.connectFailed("\(error)")))
      return
    }
    self.completion = completion
    handshake = DatagramHandshake(hello: hello)
    _ = transmit(handshake.first)
    // Resent until the server accepts the address (a lost datagram costs a tick), and on
    // while the client proves itself again later.
    retransmitTimer = loop.scheduleRepeatingLocal(every: .milliseconds(250)) { [weak self] in
      guard let self, let again = self.handshake.retransmission else { return }
      _ = self.transmit(again)
    }
    let server = self.server
    deadlineTimer = loop.scheduleLocal(after: timeout) { [weak self] in
      guard let self else { return }
      self.fail(.timeout(self.handshake.timeoutReason(server: "\(server)", after: timeout)))
    }
  }

  private func fail(_ error: ChatClientError) {
    guard let completion else { return }
    self.completion = nil
    close()
    completion.resume(returning: .failure(error))
  }

  func send(_ text: String) -> Bool {
    guard socket != nil else { return false }
    // Held while the client proves its address again (sent once it is accepted).
    guard let now = handshake.outgoing(text) else { return true }
    return transmit(now)
  }

  private func transmit(_ text: String) -> Bool {
    guard let socket else { return false }
    return socket.send(SharedBytes(string: text), to: server)
  }

  func close() {
    retransmitTimer?.cancel()
    deadlineTimer?.cancel()
    retransmitTimer = nil
    deadlineTimer = nil
    socket?.close()
    socket = nil
    finish(reason: "closed")
    if let completion {
      self.completion = nil
      completion.resume(returning: .failure(.closed("closed while connecting")))
    }
  }

  private func finish(reason: String) {
    guard !finished else { return }
    finished = true
    inputs.yield(.closed(code: nil, reason: reason))
    inputs.finish()
  }

  func socket(_ socket: UDPSocket, didReceive bytes: UnsafeRawBufferPointer, from sender: SocketAddress, truncated: Bool) {
    guard sender == server else { return }
    // A datagram may hold several lines (replies to /help); each is one unit, split as
    // the line dialect splits a stream.
    var lines = LineFramer(maxLineLength: Self.maxLineLength)
    lines.append(bytes)
    while case .line(let line)? = lines.next() { handle(String(decoding: line, as: UTF8.self)) }
    if let last = lines.takePartial() { handle(String(decoding: last, as: UTF8.self)) }
  }

  private func handle(_ line: String) {
    switch handshake.receive(line) {
    case .none:
      break
    case .deliver:
      inputs.yield(.text(line))
    case .send(let datagrams):
      for datagram in datagrams { _ = transmit(datagram) }
    case .connected(let hello):
      for datagram in hello { _ = transmit(datagram) }
      guard let completion else { return }
      self.completion = nil
      // The retransmission tick stays: it resends a proof if the server forgets the address.
      deadlineTimer?.cancel()
      deadlineTimer = nil
      completion.resume(returning: .success(()))
    case .refused(let reason):
      fail(.serverError(reason))
    }
  }
}
