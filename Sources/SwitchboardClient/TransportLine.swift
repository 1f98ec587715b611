/// The line transport: `tcp://` (plain) or `tls://` (``TLSConnection``). Lines go out
/// with `\n`; received bytes are split by the line dialect's ``LineFramer`` (LF or CR LF
/// ends a line) and decoded as UTF-8 with invalid bytes replaced.
typealias TransportLine = ChannelTransport<LineChannel>

extension ChannelTransport where Channel == LineChannel {
  static func connect(_ request: ChatTransportRequest) async throws(ChatClientError) -> TransportLine {
    let keepAlive = request.keepAlive
    let tls = request.tlsConfiguration
    let hello = request.hello
    let timeout = request.connectTimeout
    return try await open(request) { loop, _, inputs in
      LineChannel(loop: loop, inputs: inputs, keepAlive: keepAlive)
    } start: { channel, address, done in
      channel.start(address: address, tls: tls, hello: hello, timeout: timeout, completion: done)
    } cancel: { channel in
      channel.failConnect(.closed("cancelled"))
    }
  }
}
