import SwitchboardIO

/// A POSIX transport whose socket is a channel on one event loop: ``TransportLine``
/// (`tcp://`, `tls://`).
///
/// This side is reached from any task: each call is a hop to the channel's loop. The
/// socket, the framing and the connect handshake are the channel's.
final class ChannelTransport<Channel: TransportChannel>: ChatTransportConnection {
  let inputs: AsyncStream<ChatTransportInput>
  var headers: [ChatClient.Header] { [] }
  private let channel: LoopBound<Channel>

  private init(inputs: AsyncStream<ChatTransportInput>, channel: LoopBound<Channel>) {
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
    _ request: ChatTransportRequest,
    make: (EventLoop, SocketAddress, AsyncStream<ChatTransportInput>.Continuation) -> sending Channel,
    start: @escaping @Sendable (Channel, SocketAddress, CheckedContinuation<Result<Void, ChatClientError>, Never>)
      -> Void,
    cancel: @escaping @Sendable (Channel) -> Void
  ) async throws(ChatClientError) -> ChannelTransport {
    let loop = try POSIXChatTransport.loop(request).loop
    let address = try POSIXChatTransport.resolve(request.endpoint)
    let (inputs, continuation) = AsyncStream.makeStream(of: ChatTransportInput.self)
    let channel = LoopBound(sending: make(loop, address, continuation), on: loop)
    try await POSIXChatTransport.start(on: loop) { done in
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
