import SwitchboardIO
import SwitchboardTLS
import SwitchboardWire

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The socket side of ``TransportLine``, on its loop.
final class LineChannel: TransportChannel, ByteStreamDelegate {
  static let sendFailure = "connection closed"

  private let loop: EventLoop
  private let inputs: AsyncStream<ChatTransportInput>.Continuation
  private let keepAlive: Duration?
  private var stream: ByteStream?
  private var completion: CheckedContinuation<Result<Void, ChatClientError>, Never>?
  private var timer: Scheduled?
  private var reader = LineReader()
  private var finished = false
  /// Kept alive while the socket is open (a TLS connection holds its delegate weakly).
  private var keepSelf: LineChannel?

  init(loop: EventLoop, inputs: AsyncStream<ChatTransportInput>.Continuation, keepAlive: Duration?) {
    self.loop = loop
    self.inputs = inputs
    self.keepAlive = keepAlive
  }

  func start(
    address: SocketAddress, tls configuration: TLSConfiguration?, hello: [String], timeout: Duration,
    completion: CheckedContinuation<Result<Void, ChatClientError>, Never>
  ) {
    self.completion = completion
    keepSelf = self
    timer = loop.scheduleLocal(after: timeout) { [weak self] in
      self?.failConnect(.timeout("no connection to \(address) within \(timeout)"))
    }
    if let configuration {
      TLSConnection.connect(to: address, configuration: configuration, on: loop) { result in
        switch result {
        case .failure(let error):
          self.failConnect(.connectFailed(ChatClientError.withTLSHint("\(address): \(error)")))
        case .success(let connection):
          self.established(.tls(connection), hello: hello)
        }
      }
    } else {
      TCPConnection.connect(to: address, on: loop) { result in
        switch result {
        case .failure(let error): self.failConnect(.cannotConnect(error))
        case .success(let connection):
          self.established(.tcp(connection), hello: hello)
        }
      }
    }
  }

  private func established(_ stream: ByteStream, hello: [String]) {
    guard completion != nil else { return stream.close() }
    stream.attach(self)
    self.stream = stream
    let fd = stream.tcp.fd
    timer?.cancel()
    timer = nil
    if let keepAlive {
      // The kernel's own dead-peer check, beside the application probe.
      let idle = Int32(max(1, keepAlive.components.seconds))
      var on: Int32 = 1
      var idleValue = idle
      var interval: Int32 = max(1, idle / 3)
      var count: Int32 = 3
      let size = socklen_t(MemoryLayout<Int32>.size)
      setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, size)
      #if os(Linux)
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_KEEPIDLE, &idleValue, size)
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_KEEPINTVL, &interval, size)
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_KEEPCNT, &count, size)
      #endif
    }
    for line in hello { _ = send(line) }
    let completion = self.completion
    self.completion = nil
    completion?.resume(returning: .success(()))
  }

  func failConnect(_ error: ChatClientError) {
    guard let completion else { return }
    self.completion = nil
    timer?.cancel()
    timer = nil
    stream?.close()
    finish(reason: error.description)
    completion.resume(returning: .failure(error))
  }

  /// Queues `line` and its `\n`; `false` when the connection is closed.
  func send(_ line: String) -> Bool {
    let text = line + "\n"
    guard let stream, !stream.isClosed else { return false }
    stream.write(string: text)
    return true
  }

  func close() {
    if completion != nil { return failConnect(.closed("closed while connecting")) }
    stream?.close()
  }

  private func finish(reason: String) {
    guard !finished else { return }
    finished = true
    if let partial = reader.finish() { inputs.yield(.text(partial)) }
    inputs.yield(.closed(code: nil, reason: reason))
    inputs.finish()
    keepSelf = nil
  }

  private func read(_ bytes: UnsafeRawBufferPointer) {
    let inputs = self.inputs
    reader.read(bytes) { inputs.yield(.text($0)) }
  }

  // MARK: ByteStreamDelegate

  func stream(_ stream: ByteStream, didRead bytes: UnsafeRawBufferPointer) { read(bytes) }
  func stream(_ stream: ByteStream, didCloseWith error: ByteStreamError?) {
    finish(reason: error.map { "\($0)" } ?? "closed by the server")
  }
}
