import SwitchboardIO

/// Connects the transport `endpoint` names.
enum TransportFactory {
  static func connect(
    _ endpoint: ChatEndpoint, webSocketURL: String, hello: [String], configuration: ChatClient.Configuration
  ) async throws(ChatClientError) -> any TransportConnection {
    switch endpoint.scheme {
    case .ws, .wss:
      return try await TransportWebSocket.connect(url: webSocketURL, configuration: configuration)
    case .tcp, .tls:
      return try await TransportLine.connect(endpoint, hello: hello, configuration: configuration)
    case .udp:
      return try await TransportDatagram.connect(endpoint, hello: hello, configuration: configuration)
    }
  }

  /// The loop to run a socket on.
  static func loop(_ configuration: ChatClient.Configuration) throws(ChatClientError) -> EventLoopRef {
    if let group = configuration.eventLoopGroup { return EventLoopRef(loop: group.next()) }
    switch WebSocketClient.sharedGroup {
    case .success(let group): return EventLoopRef(loop: group.next())
    case .failure(let error): throw .connectFailed("no event loop: \(error)")
    }
  }
}

extension TransportFactory {
  /// The endpoint's address (numeric hosts need no DNS).
  static func resolve(_ endpoint: ChatEndpoint) throws(ChatClientError) -> SocketAddress {
    do {
      return try SocketAddress.resolve(host: endpoint.host, port: endpoint.port)
    } catch {
      throw .connectFailed("\(endpoint.host): \(error)")
    }
  }

  /// Runs `start` on `loop` and waits for the completion it is handed; cancelling the
  /// waiting task runs `cancel` on the loop (which must complete the start with an error).
  static func start(
    on loop: EventLoop,
    _ start: @escaping @Sendable (CheckedContinuation<Result<Void, ChatClientError>, Never>) -> Void,
    cancel: @escaping @Sendable () -> Void
  ) async throws(ChatClientError) {
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation { (done: CheckedContinuation<Result<Void, ChatClientError>, Never>) in
        loop.execute { start(done) }
      }
    } onCancel: {
      loop.execute(cancel)
    }
    try result.get()
  }
}
