#if canImport(Network)
  import Foundation
  // @preconcurrency: Network.framework's objects (NWConnection, NWBrowser, NWPathMonitor,
  // the protocol metadata) may be used from any thread, and this code hands them to the
  // @Sendable handlers Network.framework calls on its queues. An SDK that does not yet mark
  // a type Sendable would make that an error in Swift 6; with this it is not (Apple's own
  // Network samples import it so).
  @preconcurrency import Network

  /// The Network.framework transports, the default on Apple platforms
  /// (``ChatTransports/system``): an `NWConnection` for every scheme, so that the system
  /// trust store, cellular and VPN on demand, Happy Eyeballs, NAT64 on IPv6-only networks and
  /// the system proxy settings apply. (App Transport Security governs `URLSession`, not
  /// Network.framework: `ws://` to a server on the local network needs no ATS exception.)
  ///
  /// - `tcp`/`tls`: a TCP (or TLS over TCP) connection carrying the line dialect.
  /// - `udp`: a UDP "connection" carrying the datagram dialect and its address proof.
  /// - `ws`/`wss`: `NWProtocolWebSocket` over TCP or TLS.
  ///
  /// ``ChatTransportRequest/tls`` maps onto `NWProtocolTLS` (docs/CLIENT.md, "Transports");
  /// ``ChatTransportRequest/compression`` is ignored (`NWProtocolWebSocket` offers no
  /// permessage-deflate) and ``ChatTransportRequest/eventLoopGroup`` too (Network.framework
  /// runs its connections on its own queues).
  public struct NetworkChatTransport: ChatTransport {
    /// The Network.framework transports.
    public init() {}

    public func connect(_ request: ChatTransportRequest) async throws(ChatClientError) -> any ChatTransportConnection {
      switch request.endpoint.scheme {
      case .tcp, .tls: try await NetworkLineLink.connect(request)
      case .udp: try await NetworkDatagramLink.connect(request)
      case .ws, .wss: try await NetworkWebSocketConnection.connect(request)
      }
    }
  }

  extension NWConnection {
    /// Starts the connection on `queue` and waits until it is ready (``ConnectGate``):
    /// `.failed` and `.waiting` (no usable path, or the server refused) fail the connect; a
    /// connect that fails, times out or is cancelled cancels the connection. `ended` is called when
    /// the connection fails or is cancelled. `tls` (the TLS verify hook's verdict) says why a
    /// handshake the hook refused failed.
    func startAndWait(
      on queue: DispatchQueue, timeout: Duration, what: String, tls: TLSVerdict? = nil,
      ended: @escaping @Sendable (String) -> Void
    ) async throws(ChatClientError) {
      let gate = ConnectGate()
      let failure = { @Sendable (error: NWError) -> ChatClientError in
        .connectFailed("\(what): \(tls?.describe(failure: "\(error)") ?? "\(error)")")
      }
      stateUpdateHandler = { state in
        switch state {
        case .ready: gate.open()
        case .waiting(let error):
          // No usable path, or refused: this attempt fails and the client's reconnect policy
          // (and its network-path hook) decides when to try again, as with POSIX sockets.
          gate.fail(failure(error))
        case .failed(let error):
          gate.fail(failure(error))
          ended("\(error)")
        case .cancelled:
          gate.fail(.closed("cancelled while connecting"))
          ended("closed")
        case .setup, .preparing: break
        @unknown default: break
        }
      }
      start(queue: queue)
      do {
        try await gate.wait(timeout: timeout, timeoutReason: "no connection to \(what) within \(timeout)") {}
      } catch {
        cancel()
        throw error
      }
    }

    /// The TCP options every stream transport uses: no Nagle delay (chat lines are small
    /// and latency-bound), the connect timeout, and keepalive at the heartbeat's interval.
    static func tcpOptions(_ request: ChatTransportRequest) -> NWProtocolTCP.Options {
      let tcp = NWProtocolTCP.Options()
      tcp.noDelay = true
      tcp.connectionTimeout = max(1, Int(request.connectTimeout.components.seconds))
      if let keepAlive = request.keepAlive {
        tcp.enableKeepalive = true
        tcp.keepaliveIdle = max(1, Int(keepAlive.components.seconds))
      }
      return tcp
    }

    /// The endpoint's host and port.
    static func endpoint(_ endpoint: ChatEndpoint) throws(ChatClientError) -> NWEndpoint {
      guard let port = NWEndpoint.Port(rawValue: UInt16(clamping: endpoint.port)), endpoint.port > 0 else {
        throw .invalidURL("port \(endpoint.port)")
      }
      return .hostPort(host: NWEndpoint.Host(endpoint.host), port: port)
    }

    /// Sends `data` as one message (`context`), waiting until Network.framework has taken
    /// it; `false` when the connection failed or closed.
    func sendAndWait(_ data: Data?, context: NWConnection.ContentContext = .defaultMessage) async -> Bool {
      await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
        send(content: data, contentContext: context, isComplete: true, completion: .contentProcessed { error in
          done.resume(returning: error == nil)
        })
      }
    }
  }
#endif
