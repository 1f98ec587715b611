import SwitchboardChat
import SwitchboardIO

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
  private var timers: [Scheduled] = []
  private var finished = false

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
    for text in hello { _ = send(text) }
    if let first = hello.first {
      timers.append(loop.scheduleRepeatingLocal(every: .milliseconds(250)) { [weak self] in _ = self?.send(first) })
    }
    let server = self.server
    timers.append(
      loop.scheduleLocal(after: timeout) { [weak self] in
        self?.fail(.timeout("no answer from udp://\(server) within \(timeout)"))
      })
  }

  private func fail(_ error: ChatClientError) {
    guard let completion else { return }
    self.completion = nil
    close()
    completion.resume(returning: .failure(error))
  }

  func send(_ text: String) -> Bool {
    guard let socket else { return false }
    return socket.send(SharedBytes(string: text), to: server)
  }

  func close() {
    for timer in timers { timer.cancel() }
    timers = []
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
    if let completion {
      // The first answer: the server is there.
      self.completion = nil
      for timer in timers { timer.cancel() }
      timers = []
      completion.resume(returning: .success(()))
    }
    // A datagram may hold several lines (replies to /help); each is one unit, split as
    // the line dialect splits a stream.
    var lines = LineFramer(maxLineLength: Self.maxLineLength)
    lines.append(bytes)
    while case .line(let line)? = lines.next() { inputs.yield(.text(String(decoding: line, as: UTF8.self))) }
    if let last = lines.takePartial() { inputs.yield(.text(String(decoding: last, as: UTF8.self))) }
  }
}
