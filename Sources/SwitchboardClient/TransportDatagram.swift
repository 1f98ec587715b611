import SwitchboardIO

/// The UDP transport: one datagram per unit, from a socket bound to a kernel-chosen
/// port. "Connecting" sends the hello datagrams (`iam:NAME`, …) and waits for the
/// server's first answer (its `Server received:` echo), resending the first one every
/// 250 ms, so a server that is not there is noticed as a connect timeout.
final class TransportDatagram: TransportConnection {
  let inputs: AsyncStream<TransportInput>
  var headers: [ChatClient.Header] { [] }
  private let channel: LoopBound<DatagramChannel>

  private init(inputs: AsyncStream<TransportInput>, channel: LoopBound<DatagramChannel>) {
    self.inputs = inputs
    self.channel = channel
  }

  deinit {
    let channel = self.channel
    channel.loop.execute { channel.value.close() }
  }

  static func connect(
    _ endpoint: ChatEndpoint, hello: [String], configuration: ChatClient.Configuration
  ) async throws(ChatClientError) -> TransportDatagram {
    let loop = try TransportFactory.loop(configuration).loop
    let address = try TransportFactory.resolve(endpoint)
    let (inputs, continuation) = AsyncStream.makeStream(of: TransportInput.self)
    let channel = LoopBound(sending: DatagramChannel(loop: loop, server: address, inputs: continuation), on: loop)
    let timeout = configuration.connectTimeout
    try await TransportFactory.start(on: loop) { done in
      channel.value.start(hello: hello, timeout: timeout, completion: done)
    } cancel: {
      channel.value.close()
    }
    return TransportDatagram(inputs: inputs, channel: channel)
  }

  func send(_ text: String) async throws(ChatClientError) {
    let channel = self.channel
    let ok = await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
      channel.loop.execute { done.resume(returning: channel.value.send(text)) }
    }
    if !ok { throw .closed("socket closed or send buffer full") }
  }

  func probe() async {
    try? await send("/rooms")
  }

  func close() {
    let channel = self.channel
    channel.loop.execute { channel.value.close() }
  }
}
