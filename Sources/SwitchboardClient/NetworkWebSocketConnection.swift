#if canImport(Network)
  import Foundation
  @preconcurrency import Network  // why: see NetworkChatTransport.swift
  import SwitchboardWebSocket

  /// `ws://` and `wss://` through Network.framework: `NWProtocolWebSocket` over TCP (or TLS
  /// per ``NetworkTLS``). Pings from the server are answered by the protocol
  /// (`autoReplyPing`, which consumes them: they are not reported, and the heartbeat counts
  /// the server's other frames); ``probe()`` sends a ping whose pong is reported; a close
  /// frame ends the inputs with its code. No permessage-deflate
  /// (``ChatTransportRequest/compression`` is ignored): `NWProtocolWebSocket` does not offer it.
  final class NetworkWebSocketConnection: ChatTransportConnection {
    /// How long ``close()`` waits for its close frame to go out before cancelling anyway.
    static var closeTimeout: DispatchTimeInterval { .seconds(2) }

    let headers: [ChatClient.Header]
    var inputs: AsyncStream<ChatTransportInput> { relay.stream }
    private let relay: TransportInputs
    private let connection: NWConnection
    private let queue: DispatchQueue

    private init(connection: NWConnection, queue: DispatchQueue, relay: TransportInputs) {
      self.connection = connection
      self.queue = queue
      self.relay = relay
      let metadata =
        connection.metadata(definition: NWProtocolWebSocket.definition) as? NWProtocolWebSocket.Metadata
      headers = (metadata?.additionalServerHeaders ?? []).map { ChatClient.Header(name: $0.0, value: $0.1) }
    }

    deinit { connection.cancel() }

    static func connect(_ request: ChatTransportRequest) async throws(ChatClientError) -> NetworkWebSocketConnection {
      guard let url = URL(string: request.webSocketURL) else { throw .invalidURL(request.webSocketURL) }
      let queue = DispatchQueue(label: "switchboard.client.websocket")
      var tls: NWProtocolTLS.Options?
      var verdict: TLSVerdict?
      if let configuration = request.tlsConfiguration {
        (tls, verdict) = try NetworkTLS.options(configuration, queue: queue)
      }
      let parameters = NWParameters(tls: tls, tcp: NWConnection.tcpOptions(request))
      let webSocket = NWProtocolWebSocket.Options()
      webSocket.autoReplyPing = true
      webSocket.maximumMessageSize = WebSocketClient.Configuration().maxMessageSize
      parameters.defaultProtocolStack.applicationProtocols.insert(webSocket, at: 0)
      let nw = NWConnection(to: .url(url), using: parameters)
      let relay = TransportInputs()
      try await nw.startAndWait(
        on: queue, timeout: request.connectTimeout, what: request.endpoint.description, tls: verdict
      ) {
        reason in _ = relay.end(code: nil, reason: reason)
      }
      let connection = NetworkWebSocketConnection(connection: nw, queue: queue, relay: relay)
      receive(on: nw, into: relay)
      return connection
    }

    /// Relays each message until a close frame or the end of the connection.
    private static func receive(on connection: NWConnection, into relay: TransportInputs) {
      connection.receiveMessage { data, context, isComplete, error in
        if let error {
          relay.end(code: nil, reason: "\(error)")
          connection.cancel()
          return
        }
        let metadata =
          context?.protocolMetadata(definition: NWProtocolWebSocket.definition) as? NWProtocolWebSocket.Metadata
        switch metadata?.opcode {
        case .text?: relay.yield(.text(String(decoding: data ?? Data(), as: UTF8.self)))
        case .ping?: relay.yield(.ping)
        case .pong?: relay.yield(.pong)
        case .close?:
          let text = data.map { String(decoding: $0, as: UTF8.self) } ?? ""
          relay.end(code: metadata.map { closeCode($0.closeCode) }, reason: text.isEmpty ? "closed by the server" : text)
          connection.cancel()
          return
        default:
          // Binary frames carry nothing of the chat protocol; a message with neither
          // metadata nor data is the end of the stream.
          if metadata == nil && (data?.isEmpty ?? true) && isComplete {
            relay.end(code: nil, reason: "connection lost")
            connection.cancel()
            return
          }
        }
        receive(on: connection, into: relay)
      }
    }

    /// RFC 6455's number for Network.framework's close code.
    private static func closeCode(_ code: NWProtocolWebSocket.CloseCode) -> WebSocketCloseCode {
      switch code {
      case .protocolCode(let defined): WebSocketCloseCode(defined.rawValue)
      case .applicationCode(let value), .privateCode(let value): WebSocketCloseCode(value)
      @unknown default: .noStatus
      }
    }

    func send(_ text: String) async throws(ChatClientError) {
      let context = NWConnection.ContentContext(
        identifier: "text", metadata: [NWProtocolWebSocket.Metadata(opcode: .text)])
      guard await connection.sendAndWait(Data(text.utf8), context: context) else {
        throw .closed("connection closed")
      }
    }

    /// A ping; its pong is reported as ``ChatTransportInput/pong``.
    func probe() async {
      let ping = NWProtocolWebSocket.Metadata(opcode: .ping)
      let relay = self.relay
      ping.setPongHandler(queue) { error in
        if error == nil { relay.yield(.pong) }
      }
      let context = NWConnection.ContentContext(identifier: "ping", metadata: [ping])
      _ = await connection.sendAndWait(Data("hb".utf8), context: context)
    }

    /// Sends a close frame (1000), then cancels the connection once it is out (or after
    /// ``closeTimeout``).
    func close() {
      let close = NWProtocolWebSocket.Metadata(opcode: .close)
      close.closeCode = .protocolCode(.normalClosure)
      let context = NWConnection.ContentContext(identifier: "close", metadata: [close])
      let connection = self.connection
      connection.send(content: nil, contentContext: context, isComplete: true, completion: .contentProcessed { _ in
        connection.cancel()
      })
      // A peer that never takes the frame does not keep the connection: cancelling twice is
      // harmless, and the cancellation ends `inputs` (startAndWait's `ended`).
      queue.asyncAfter(deadline: .now() + Self.closeTimeout) { connection.cancel() }
    }
  }
#endif
