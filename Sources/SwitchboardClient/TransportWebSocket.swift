/// The WebSocket transport: a ``WebSocketClient`` whose events are relayed as
/// ``ChatTransportInput``.
final class TransportWebSocket: ChatTransportConnection {
  let inputs: AsyncStream<ChatTransportInput>
  let headers: [ChatClient.Header]
  private let client: WebSocketClient

  private init(client: WebSocketClient) {
    self.client = client
    self.headers = client.response.headers.map { ChatClient.Header(name: $0.name, value: $0.value) }
    let (stream, continuation) = AsyncStream.makeStream(of: ChatTransportInput.self)
    inputs = stream
    let events = client.events
    // The relay ends when the client's stream does (after `.closed`).
    Task {
      for await event in events {
        switch event {
        case .text(let text): continuation.yield(.text(text))
        case .binary: break
        case .ping: continuation.yield(.ping)
        case .pong: continuation.yield(.pong)
        case .closed(let code, let reason): continuation.yield(.closed(code: code, reason: reason))
        }
      }
      continuation.finish()
    }
  }

  static func connect(_ request: ChatTransportRequest) async throws(ChatClientError) -> TransportWebSocket {
    var ws = WebSocketClient.Configuration(
      compression: request.compression, connectTimeout: request.connectTimeout, closeTimeout: .seconds(2))
    ws.eventLoopGroup = request.eventLoopGroup
    ws.tls = request.tls
    ws.logger = request.logger
    do {
      return TransportWebSocket(
        client: try await WebSocketClient.connect(to: request.webSocketURL, configuration: ws))
    } catch {
      throw .webSocketConnect(error)
    }
  }

  func send(_ text: String) async throws(ChatClientError) {
    do {
      try await client.send(text: text)
    } catch {
      throw .closed(error.message)
    }
  }

  func probe() async {
    try? await client.ping(Array("hb".utf8))
  }

  func close() {
    let client = self.client
    Task { await client.close() }
  }
}
