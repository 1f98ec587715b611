import SwitchboardIO

/// The built-in transports on BSD sockets (SwitchboardIO's event loops): `tcp`/`tls` lines
/// (TLS through OpenSSL), `udp` datagrams with the address proof, and `ws`/`wss` through
/// ``WebSocketClient`` (with permessage-deflate when asked).
///
/// The default on Linux. It builds on Apple platforms too, where `tls`/`wss` fail to
/// connect (no OpenSSL there) and the Network.framework transport is the default.
public struct POSIXChatTransport: ChatTransport {
  /// The POSIX transports.
  public init() {}

  public func connect(_ request: ChatTransportRequest) async throws(ChatClientError) -> any ChatTransportConnection {
    switch request.endpoint.scheme {
    case .ws, .wss: try await TransportWebSocket.connect(request)
    case .tcp, .tls: try await TransportLine.connect(request)
    case .udp: try await TransportDatagram.connect(request)
    }
  }

  /// The loop to run a socket on.
  static func loop(_ request: ChatTransportRequest) throws(ChatClientError) -> EventLoopRef {
    if let group = request.eventLoopGroup { return EventLoopRef(loop: group.next()) }
    switch WebSocketClient.sharedGroup {
    case .success(let group): return EventLoopRef(loop: group.next())
    case .failure(let error): throw .connectFailed("no event loop: \(error)")
    }
  }

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
