import Synchronization

/// One datagram socket, connected to the server, as ``DatagramConnection`` drives it: the
/// platform's part of a `udp://` transport (SwitchboardIO's `UDPSocket`, Network.framework's
/// `NWConnection`).
protocol DatagramLink: Sendable {
  /// Queues one datagram to the server, in call order, without waiting; `false` when the
  /// socket is closed.
  func send(_ datagram: String) -> Bool
  /// Closes the socket; nothing arrives after.
  func close()
}

/// The `udp://` transport over any ``DatagramLink``: the address proof
/// (``DatagramHandshake``) resent every ``retransmitInterval`` until the server accepts the
/// address (and again whenever it offers a new code), the connect deadline, the hello, and
/// each arriving datagram split into lines (``LineReader``) and delivered.
///
/// The platform's socket only sends, closes, and hands what arrives from the server to
/// ``received(_:)``; timers are tasks, so any socket API fits.
final class DatagramConnection<Link: DatagramLink>: ChatTransportConnection {
  /// How often an unanswered proof is sent again: a lost datagram costs this, not the connect.
  static var retransmitInterval: Duration { .milliseconds(250) }

  private enum Phase {
    /// Before ``connect(timeout:server:)``.
    case idle
    /// Proving the address; the connect waits on the continuation.
    case connecting(CheckedContinuation<Result<Void, ChatClientError>, Never>)
    /// Connected: units flow.
    case connected
    /// Closed, or failed to connect; `inputs` has finished.
    case closed
  }

  private struct State {
    var phase = Phase.idle
    var handshake: DatagramHandshake
    var timers: [Task<Void, Never>] = []
  }

  let inputs: AsyncStream<ChatTransportInput>
  var headers: [ChatClient.Header] { [] }
  private let output: AsyncStream<ChatTransportInput>.Continuation
  private let link: Link
  private let state: Mutex<State>

  /// A connection that will prove its address over `link`, then send `hello`. Hand every
  /// datagram from the server to ``received(_:)`` from here on.
  init(link: Link, hello: [String]) {
    self.link = link
    (inputs, output) = AsyncStream.makeStream(of: ChatTransportInput.self)
    state = Mutex(State(handshake: DatagramHandshake(hello: hello)))
  }

  deinit {
    state.withLock { s in for timer in s.timers { timer.cancel() } }
    link.close()
  }

  /// Proves the address and sends the hello; returns when the server has accepted the
  /// address. Throws ``ChatClientError/timeout`` past `timeout` (saying how far it got),
  /// ``ChatClientError/refused`` when the server refuses for good (``ChatRefusal/line(_:room:)``:
  /// auth on), ``ChatClientError/serverError`` when it refuses otherwise (`! …`), and
  /// ``ChatClientError/closed`` when closed or cancelled meanwhile.
  func connect(timeout: Duration, server: String) async throws(ChatClientError) {
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation { (done: CheckedContinuation<Result<Void, ChatClientError>, Never>) in
        let started = state.withLock { s -> Bool in
          guard case .idle = s.phase else { return false }
          s.phase = .connecting(done)
          _ = link.send(s.handshake.first)
          s.timers = [
            Task { [weak self] in
              while !Task.isCancelled {
                try? await Task.sleep(for: Self.retransmitInterval)
                self?.retransmit()
              }
            },
            Task { [weak self] in
              try? await Task.sleep(for: timeout)
              guard !Task.isCancelled, let self else { return }
              let reason = self.state.withLock { $0.handshake.timeoutReason(server: server, after: timeout) }
              self.fail(.timeout(reason))
            },
          ]
          return true
        }
        if !started { done.resume(returning: .failure(.closed("connect called twice or after close"))) }
      }
    } onCancel: {
      fail(.closed("cancelled"))
    }
    try result.get()
  }

  /// One datagram from the server.
  func received(_ datagram: UnsafeRawBufferPointer) {
    LineReader.lines(ofDatagram: datagram) { handle($0) }
  }

  /// The socket failed or closed underneath (`reason` for people).
  func linkClosed(_ reason: String) {
    finish(reason, error: .connectFailed(reason))
  }

  private func retransmit() {
    state.withLock { s in
      if let again = s.handshake.retransmission { _ = link.send(again) }
    }
  }

  private func handle(_ line: String) {
    // Sends happen under the lock so that the hello and held messages keep their order
    // against a concurrent ``send(_:)``.
    let (deliver, connected, refused) = state.withLock {
      s -> (Bool, CheckedContinuation<Result<Void, ChatClientError>, Never>?, String?) in
      if case .closed = s.phase { return (false, nil, nil) }
      switch s.handshake.receive(line) {
      case .none: return (false, nil, nil)
      case .deliver: return (true, nil, nil)
      case .send(let datagrams):
        for datagram in datagrams { _ = link.send(datagram) }
        return (false, nil, nil)
      case .connected(let hello):
        for datagram in hello { _ = link.send(datagram) }
        guard case .connecting(let done) = s.phase else { return (false, nil, nil) }
        s.phase = .connected
        // The retransmission tick stays: it resends a proof if the server forgets the address.
        if s.timers.count > 1 { s.timers.removeLast().cancel() }
        return (false, done, nil)
      case .refused(let reason): return (false, nil, reason)
      }
    }
    if deliver { output.yield(.text(line)) }
    connected?.resume(returning: .success(()))
    if let refused {
      // Final when retrying cannot help (auth on: the UDP port takes no tokens).
      fail(ChatRefusal.line("! " + refused, room: "").map { .refused($0) } ?? .serverError(refused))
    }
  }

  /// Fails a connect in progress (a connected connection is left alone).
  private func fail(_ error: ChatClientError) {
    finish(error.description, error: error, onlyConnecting: true)
  }

  /// Ends the connection: stops the timers, closes the link, finishes `inputs`, and fails
  /// a connect in progress with `error`. With `onlyConnecting`, only a connect in progress
  /// ends (a deadline or a refusal that lost the race with the acceptance changes nothing).
  private func finish(_ reason: String, error: ChatClientError, onlyConnecting: Bool = false) {
    let (wasOpen, waiting, timers) = state.withLock {
      s -> (Bool, CheckedContinuation<Result<Void, ChatClientError>, Never>?, [Task<Void, Never>]) in
      var waiting: CheckedContinuation<Result<Void, ChatClientError>, Never>?
      switch s.phase {
      case .closed: return (false, nil, [])
      case .connecting(let done): waiting = done
      case .idle, .connected: if onlyConnecting { return (false, nil, []) }
      }
      s.phase = .closed
      defer { s.timers = [] }
      return (true, waiting, s.timers)
    }
    guard wasOpen else { return }
    for timer in timers { timer.cancel() }
    link.close()
    output.yield(.closed(code: nil, reason: reason))
    output.finish()
    waiting?.resume(returning: .failure(error))
  }

  func send(_ text: String) async throws(ChatClientError) {
    let sent = state.withLock { s -> Bool in
      guard case .connected = s.phase else { return false }
      // Held while the client proves its address again (sent once it is accepted).
      guard let now = s.handshake.outgoing(text) else { return true }
      return link.send(now)
    }
    if !sent { throw .closed("socket closed") }
  }

  /// `/rooms`: the server echoes it (`Server received: /rooms`), and it keeps this address
  /// a member.
  func probe() async {
    try? await send("/rooms")
  }

  func close() {
    // A member that says goodbye leaves its room at once, not after the server's 60 s
    // silence: `switchboard chat`'s `/join` closes this client and connects in the other
    // room, and was otherwise listed in both for a minute.
    let member = state.withLock { if case .connected = $0.phase { true } else { false } }
    if member { _ = link.send("/quit") }
    finish("closed", error: .closed("closed while connecting"))
  }
}
