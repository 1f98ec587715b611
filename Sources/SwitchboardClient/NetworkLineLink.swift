#if canImport(Network)
  import Foundation
  @preconcurrency import Network  // why: see NetworkChatTransport.swift

  /// `tcp://` and `tls://` through Network.framework: an `NWConnection` (TLS per
  /// ``NetworkTLS``) as the ``StreamLink`` of a shared ``StreamLineConnection``.
  struct NetworkLineLink: StreamLink {
    let connection: NWConnection

    static func connect(_ request: ChatTransportRequest) async throws(ChatClientError) -> StreamLineConnection<NetworkLineLink> {
      let queue = DispatchQueue(label: "switchboard.client.line")
      var tls: NWProtocolTLS.Options?
      var verdict: TLSVerdict?
      if let configuration = request.tlsConfiguration {
        (tls, verdict) = try NetworkTLS.options(configuration, queue: queue)
      }
      let parameters = NWParameters(tls: tls, tcp: NWConnection.tcpOptions(request))
      let nw = NWConnection(to: try NWConnection.endpoint(request.endpoint), using: parameters)
      let line = StreamLineConnection(link: NetworkLineLink(connection: nw))
      try await nw.startAndWait(
        on: queue, timeout: request.connectTimeout, what: request.endpoint.description, tls: verdict
      ) {
        [weak line] reason in line?.ended(reason)
      }
      receive(on: nw, into: line)
      try await line.sendHello(request.hello)
      return line
    }

    /// Reads until the stream ends, handing the bytes to `line`.
    private static func receive(on connection: NWConnection, into line: StreamLineConnection<NetworkLineLink>) {
      connection.receive(minimumIncompleteLength: 1, maximumLength: 64 << 10) { [weak line] data, _, isComplete, error in
        guard let line else { return }
        if let data, !data.isEmpty { line.received(data) }
        if let error {
          line.ended("\(error)")
          connection.cancel()
        } else if isComplete {
          line.ended("closed by the server")
          connection.cancel()
        } else {
          receive(on: connection, into: line)
        }
      }
    }

    func write(_ bytes: [UInt8]) async -> Bool {
      await connection.sendAndWait(Data(bytes))
    }

    func close() {
      connection.cancel()
    }
  }
#endif
