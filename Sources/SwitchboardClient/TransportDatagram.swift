/// The UDP transport: one datagram per unit, from a socket bound to a kernel-chosen
/// port. "Connecting" sends the hello datagrams (`iam:NAME`, …) and waits for the
/// server's first answer (its `Server received:` echo), resending the first one every
/// 250 ms, so a server that is not there is noticed as a connect timeout.
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
