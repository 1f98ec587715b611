/// The UDP transport: one datagram per unit, from a socket bound to a kernel-chosen
/// port. "Connecting" proves to the server that this client receives at its address
/// (``DatagramHandshake``: `/ok`, the offered code back, resent every 250 ms), then sends
/// the hello datagrams (`iam:NAME`, …); a server that is not there, or never accepts the
/// proof, is noticed as a connect timeout, and a refusal (`! …`) fails the connect at once.
typealias TransportDatagram = ChannelTransport<DatagramChannel>

extension ChannelTransport where Channel == DatagramChannel {
  static func connect(
    _ endpoint: ChatEndpoint, hello: [String], configuration: ChatClient.Configuration
  ) async throws(ChatClientError) -> TransportDatagram {
    let timeout = configuration.connectTimeout
    return try await open(endpoint, configuration: configuration) { loop, server, inputs in
      DatagramChannel(loop: loop, server: server, inputs: inputs)
    } start: { channel, _, done in
      channel.start(hello: hello, timeout: timeout, completion: done)
    } cancel: { channel in
      channel.close()
    }
  }
}
