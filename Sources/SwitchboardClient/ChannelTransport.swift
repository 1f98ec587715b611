import SwitchboardIO

/// The transports of the line dialect, whose socket is a channel on one event loop:
/// ``TransportLine`` (`tcp://`, `tls://`) and ``TransportDatagram`` (`udp://`).
///
/// This side, reached from any task, is the same for both: each call is a hop to the
/// channel's loop. What differs (the socket, framing, the connect handshake) is in the
/// channel.
final class ChannelTransport<Channel: TransportChannel>: TransportConnection {
  let inputs: AsyncStream<TransportInput>
  var headers: [ChatClient.Header] { [] }
  private let channel: LoopBound<Channel>

  private init(inputs: AsyncStream<TransportInput>, channel: LoopBound<Channel>) {
    self.inputs = inputs
    self.channel = channel
  }

  deinit {
    let channel = self.channel
    channel.loop.execute { channel.value.close() }
  }

  /// Makes the channel on a loop of the configured group and runs `start` there; returns
  /// once `start` has completed its continuation with success.
  /// - Parameters:
  ///   - make: Creates the channel, given its loop, the endpoint's address and where its
  ///     inputs go.
  ///   - start: Opens the socket, on the loop; completes the continuation when connected.
  ///   - cancel: Run on the loop if the connecting task is cancelled; must complete the
  ///     start with an error.
  static func open(
    _ endpoint: ChatEndpoint, configuration: ChatClient.Configuration,
    make: (EventLoop, SocketAddress, AsyncStream<TransportInput>.Continuation) -> sending Channel,
    start: @escaping @Sendable (Channel, SocketAddress, CheckedContinuation<Result<Void, ChatClientError>, Never>)
      -> Void,
    cancel: @escaping @Sendable (Channel) -> Void
  ) async throws(ChatClientError) -> ChannelTransport {
    let loop = try TransportFactory.loop(configuration).loop
    let address = try TransportFactory.resolve(endpoint)
    let (inputs, continuation) = AsyncStream.makeStream(of: TransportInput.self)
    let channel = LoopBound(sending: make(loop, address, continuation), on: loop)
    try await TransportFactory.start(on: loop) { done in
      start(channel.value, address, done)
    } cancel: {
      cancel(channel.value)
    }
    return ChannelTransport(inputs: inputs, channel: channel)
  }

  func send(_ text: String) async throws(ChatClientError) {
    let channel = self.channel
    let ok = await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
      channel.loop.execute { done.resume(returning: channel.value.send(text)) }
    }
    if !ok { throw .closed(Channel.sendFailure) }
  }

  /// `/rooms`: every line-dialect server answers it, and it changes nothing.
  func probe() async {
    try? await send("/rooms")
  }

  func close() {
    let channel = self.channel
    channel.loop.execute { channel.value.close() }
  }
}
