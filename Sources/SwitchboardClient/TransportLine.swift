import SwitchboardIO
import SwitchboardTLS

/// The line transport: `tcp://` (plain) or `tls://` (``TLSConnection``). Lines go out
/// with `\n`; received bytes are split at LF (a CR before it is dropped) and decoded as
/// UTF-8 with invalid bytes replaced.
final class TransportLine: TransportConnection {
  let inputs: AsyncStream<TransportInput>
  var headers: [ChatClient.Header] { [] }
  private let channel: LoopBound<LineChannel>

  private init(inputs: AsyncStream<TransportInput>, channel: LoopBound<LineChannel>) {
    self.inputs = inputs
    self.channel = channel
  }

  deinit {
    let channel = self.channel
    channel.loop.execute { channel.value.close() }
  }

  static func connect(
    _ endpoint: ChatEndpoint, hello: [String], configuration: ChatClient.Configuration
  ) async throws(ChatClientError) -> TransportLine {
    let loop = try TransportFactory.loop(configuration).loop
    let address = try TransportFactory.resolve(endpoint)
    let (inputs, continuation) = AsyncStream.makeStream(of: TransportInput.self)
    let keepAlive = configuration.heartbeat.isEnabled ? configuration.heartbeat.interval : nil
    let channel = LoopBound(sending: LineChannel(loop: loop, inputs: continuation, keepAlive: keepAlive), on: loop)
    var tlsConfiguration: TLSConfiguration? = nil
    if endpoint.scheme == .tls {
      var c = configuration.tls ?? TLSConfiguration()
      if c.serverName == nil { c.serverName = endpoint.host }
      tlsConfiguration = c
    }
    let tls = tlsConfiguration
    let timeout = configuration.connectTimeout
    try await TransportFactory.start(on: loop) { done in
      channel.value.start(address: address, tls: tls, hello: hello, timeout: timeout, completion: done)
    } cancel: {
      channel.value.failConnect(.closed("cancelled"))
    }
    return TransportLine(inputs: inputs, channel: channel)
  }

  func send(_ text: String) async throws(ChatClientError) {
    let channel = self.channel
    let ok = await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
      channel.loop.execute { done.resume(returning: channel.value.write(text + "\n")) }
    }
    if !ok { throw .closed("connection closed") }
  }

  func probe() async {
    try? await send("/rooms")
  }

  func close() {
    let channel = self.channel
    channel.loop.execute { channel.value.close() }
  }
}
