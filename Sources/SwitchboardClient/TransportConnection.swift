/// One open connection of some transport. The driver owns it for the life of one
/// connection: it reads ``inputs`` from one task and writes from another.
protocol TransportConnection: Sendable {
  /// Everything received, ending with ``TransportInput/closed(code:reason:)``.
  var inputs: AsyncStream<TransportInput> { get }
  /// Response headers (WebSocket), else empty.
  var headers: [ChatClient.Header] { get }
  /// Sends one unit as is (a JSON frame, a line without its terminator, a datagram).
  /// Returns once it is queued on the socket.
  func send(_ text: String) async throws(ChatClientError)
  /// Sends a liveness probe.
  func probe() async
  /// Closes; ``inputs`` finishes soon after. Does not wait.
  func close()
}
