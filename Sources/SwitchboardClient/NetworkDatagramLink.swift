#if canImport(Network)
  import Foundation
  @preconcurrency import Network  // why: see NetworkChatTransport.swift

  /// `udp://` through Network.framework: an `NWConnection` over UDP as the ``DatagramLink``
  /// of a shared ``DatagramConnection`` (the address proof, its retransmission, the hello).
  struct NetworkDatagramLink: DatagramLink {
    let connection: NWConnection

    static func connect(_ request: ChatTransportRequest) async throws(ChatClientError) -> DatagramConnection<NetworkDatagramLink> {
      let queue = DispatchQueue(label: "switchboard.client.udp")
      let nw = NWConnection(to: try NWConnection.endpoint(request.endpoint), using: .udp)
      let datagrams = DatagramConnection(link: NetworkDatagramLink(connection: nw), hello: request.hello)
      // A UDP connection is "ready" once a path and a local port exist; the proof is the connect.
      try await nw.startAndWait(on: queue, timeout: request.connectTimeout, what: request.endpoint.description) {
        [weak datagrams] reason in datagrams?.linkClosed(reason)
      }
      receive(on: nw, into: datagrams)
      try await datagrams.connect(timeout: request.connectTimeout, server: request.endpoint.description)
      return datagrams
    }

    /// Hands each datagram to `datagrams` until the connection ends.
    private static func receive(on connection: NWConnection, into datagrams: DatagramConnection<NetworkDatagramLink>) {
      connection.receiveMessage { [weak datagrams] data, _, _, error in
        guard let datagrams else { return }
        if let data { data.withUnsafeBytes { datagrams.received($0) } }
        if let error {
          datagrams.linkClosed("\(error)")
        } else {
          receive(on: connection, into: datagrams)
        }
      }
    }

    func send(_ datagram: String) -> Bool {
      switch connection.state {
      case .failed, .cancelled: return false
      default: break
      }
      connection.send(content: Data(datagram.utf8), completion: .idempotent)
      return true
    }

    func close() {
      connection.cancel()
    }
  }
#endif
