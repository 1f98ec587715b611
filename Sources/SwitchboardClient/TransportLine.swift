import SwitchboardTLS

/// The line transport: `tcp://` (plain) or `tls://` (``TLSConnection``). Lines go out
/// with `\n`; received bytes are split by the line dialect's ``LineFramer`` (LF or CR LF
/// ends a line) and decoded as UTF-8 with invalid bytes replaced.
typealias TransportLine = ChannelTransport<LineChannel>

extension ChannelTransport where Channel == LineChannel {
  static func connect(
    _ endpoint: ChatEndpoint, hello: [String], configuration: ChatClient.Configuration
  ) async throws(ChatClientError) -> TransportLine {
    let keepAlive = configuration.heartbeat.isEnabled ? configuration.heartbeat.interval : nil
    var tlsConfiguration: TLSConfiguration? = nil
    if endpoint.scheme == .tls {
      var c = configuration.tls ?? TLSConfiguration()
      if c.serverName == nil { c.serverName = endpoint.host }
      tlsConfiguration = c
    }
    let tls = tlsConfiguration
    let timeout = configuration.connectTimeout
    return try await open(endpoint, configuration: configuration) { loop, _, inputs in
      LineChannel(loop: loop, inputs: inputs, keepAlive: keepAlive)
    } start: { channel, address, done in
      channel.start(address: address, tls: tls, hello: hello, timeout: timeout, completion: done)
    } cancel: { channel in
      channel.failConnect(.closed("cancelled"))
    }
  }
}
