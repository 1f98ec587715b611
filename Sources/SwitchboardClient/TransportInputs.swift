import SwitchboardWebSocket

import Synchronization

/// The receiving end of a ``ChatTransportConnection`` whose callbacks may report the end more
/// than once (a close frame, then the connection's cancellation): everything before the end
/// is delivered, the end once, nothing after.
final class TransportInputs: Sendable {
  /// What the client reads (``ChatTransportConnection/inputs``).
  let stream: AsyncStream<ChatTransportInput>
  private let continuation: AsyncStream<ChatTransportInput>.Continuation
  private let ended = Atomic(false)

  init() {
    (stream, continuation) = AsyncStream.makeStream(of: ChatTransportInput.self)
  }

  /// Delivers `input` unless the end was delivered.
  func yield(_ input: ChatTransportInput) {
    guard !ended.load(ordering: .acquiring) else { return }
    continuation.yield(input)
  }

  /// Delivers the end (`.closed`) and finishes the stream; `false` when it was already done.
  @discardableResult
  func end(code: WebSocketCloseCode?, reason: String) -> Bool {
    guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return false }
    continuation.yield(.closed(code: code, reason: reason))
    continuation.finish()
    return true
  }
}
