import Synchronization
import SwitchboardWebSocket

/// The part of a client's state that any thread reads: where the connection is in its
/// life, and who waits for it to end. One lock around one small state machine; the
/// continuations are resumed after unlocking.
///
/// The socket-side state (the TCP connection, the WebSocket state machine) lives in
/// ``ClientChannel`` on the event loop; the channel reports its transitions here.
final class ClientLifecycle: Sendable {
  private enum Phase {
    /// Messages can be sent.
    case open
    /// ``WebSocketClient/close(code:reason:)`` was called; the loop is closing.
    case closing
    /// The WebSocket close handshake is over (or failed); TCP may still be open.
    case closed(code: WebSocketCloseCode?)
    /// TCP is closed: nothing more will happen.
    case finished(code: WebSocketCloseCode?)
  }

  private struct State {
    var phase = Phase.open
    var closeWaiters: [CheckedContinuation<Void, Never>] = []
  }

  private let state = Mutex(State())

  /// What ``WebSocketClient/close(code:reason:)`` must do after registering its waiter.
  enum CloseRequest {
    /// Send the close frame (the first close call).
    case start
    /// A close is already under way: just wait.
    case wait
    /// Already finished: the waiter was not kept, resume it now.
    case done
  }

  /// Registers `waiter` to be resumed when TCP is closed and says what to do.
  func requestClose(_ waiter: CheckedContinuation<Void, Never>) -> CloseRequest {
    state.withLock { state in
      switch state.phase {
      case .finished:
        return .done
      case .open:
        state.phase = .closing
        state.closeWaiters.append(waiter)
        return .start
      case .closing, .closed:
        state.closeWaiters.append(waiter)
        return .wait
      }
    }
  }

  /// `nil` while sends are accepted, otherwise the error a send gets.
  var sendError: WebSocketClientError? {
    state.withLock { state in
      switch state.phase {
      case .open: nil
      case .closing: .closed(code: nil, reason: "close() was called")
      case .closed(let code), .finished(let code): .closed(code: code)
      }
    }
  }

  /// The WebSocket conversation is over (the close handshake finished or failed).
  func webSocketClosed(code: WebSocketCloseCode?) {
    state.withLock { state in
      switch state.phase {
      case .open, .closing: state.phase = .closed(code: code)
      case .closed, .finished: break
      }
    }
  }

  /// TCP is closed: wakes every ``WebSocketClient/close(code:reason:)`` caller.
  func finished(code: WebSocketCloseCode?) {
    let waiters = state.withLock { state in
      switch state.phase {
      case .closed(let recorded): state.phase = .finished(code: recorded)
      case .finished: break
      case .open, .closing: state.phase = .finished(code: code)
      }
      let waiters = state.closeWaiters
      state.closeWaiters = []
      return waiters
    }
    for waiter in waiters { waiter.resume() }
  }
}
