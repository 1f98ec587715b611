import Observation
import Synchronization

/// A chat screen's state, observable with the Observation framework (SwiftUI, or
/// `withObservationTracking` anywhere), fed by a ``ChatClient``.
///
/// Platform-neutral and not tied to the main actor: the state sits behind one lock, so
/// any thread may read it, and changes are published through an `ObservationRegistrar`.
/// Updates are coalesced: events are gathered and applied at most
/// `maxUpdatesPerSecond` times a second (default 60), each application being one
/// observable change of ``messages`` (and of ``connectionState`` when it changed), so
/// a burst of 10,000 messages costs a screen a few dozen redraws, not 10,000.
///
/// ```swift
/// let model = ChatViewModel(client: try ChatClient(url: "ws://host:1337/", name: "ada"))
/// model.start()
/// try await model.send("hi")
/// // SwiftUI: List(model.messages) { item in Text(item.text) }
/// model.stop()
/// ```
public final class ChatViewModel: Observable, Sendable {
  /// One row of the transcript.
  public struct Item: Sendable, Hashable, Identifiable {
    /// What the row shows.
    public enum Kind: Sendable, Hashable {
      /// A chat message.
      case message
      /// A notice: presence, a server notice, a gap marker, an error.
      case notice
    }
    /// Which side a message sits on.
    public enum Side: String, Sendable, Hashable {
      /// Sent by this client.
      case me
      /// Sent by someone else (or a notice).
      case other
    }
    /// A local, increasing row number.
    public var id: Int
    /// Message or notice.
    public var kind: Kind
    /// The server's message id (WebSocket).
    public var messageID: UInt64?
    /// The author (empty for notices).
    public var author: String
    /// The text.
    public var text: String
    /// Whether this client sent it.
    public var isMine: Bool
    /// The author's colour, when the server gave one.
    public var color: String?
    /// `.me` or `.other`, from ``isMine``.
    public var side: Side { isMine ? .me : .other }
  }

  /// Where the connection is.
  public enum ConnectionState: Sendable, Hashable {
    /// ``start()`` not called yet.
    case idle
    /// Connecting for the first time.
    case connecting
    /// Connected.
    case connected
    /// Waiting to reconnect: attempt `attempt` starts at `at`.
    case reconnecting(attempt: Int, at: ContinuousClock.Instant)
    /// Stopped (closed, or the client gave up); `reason` says why.
    case disconnected(reason: String)
  }

  private struct State {
    var messages: [Item] = []
    var connectionState = ConnectionState.idle
    var viable = true
    var nextItemID = 0
    var pending: [Item] = []
    var pendingConnectionState: ConnectionState?
    var pendingViable: Bool?
    var flushScheduled = false
    var lastFlush = ContinuousClock.now - .seconds(1)
    var publishedUpdates = 0
    var task: Task<Void, Never>?
  }

  /// The client this model shows.
  public let client: ChatClient
  /// The most transcript rows kept (older ones are dropped; default 10,000).
  public let maxItems: Int
  private let minimumInterval: Duration
  private let state = Mutex(State())
  private let registrar = ObservationRegistrar()

  /// Creates a model for `client`.
  /// - Parameters:
  ///   - client: The client to run (``start()`` runs it).
  ///   - maxUpdatesPerSecond: The most observable updates per second (default 60).
  ///   - maxItems: The most rows kept (default 10,000).
  public init(client: ChatClient, maxUpdatesPerSecond: Int = 60, maxItems: Int = 10_000) {
    self.client = client
    self.maxItems = max(1, maxItems)
    self.minimumInterval = .seconds(1) / max(1, maxUpdatesPerSecond)
  }

  // MARK: Observable state

  /// The transcript, oldest first.
  public var messages: [Item] {
    registrar.access(self, keyPath: \.messages)
    return state.withLock { $0.messages }
  }

  /// The connection's state.
  public var connectionState: ConnectionState {
    registrar.access(self, keyPath: \.connectionState)
    return state.withLock { $0.connectionState }
  }

  /// `false` while the peer is not answering heartbeats.
  public var isViable: Bool {
    registrar.access(self, keyPath: \.isViable)
    return state.withLock { $0.viable }
  }

  /// How many coalesced updates were published so far (diagnostics, tests).
  public var publishedUpdates: Int { state.withLock { $0.publishedUpdates } }

  // MARK: Running

  /// Runs the client in a task of its own until ``stop()``.
  public func start() {
    let client = self.client
    let started = state.withLock { s -> Bool in
      guard s.task == nil else { return false }
      s.task = Task { [weak self] in
        do {
          try await client.run { session in
            for await event in session.events { self?.receive(event) }
          }
        } catch {
          self?.receive(.disconnected(reason: "\(error)", code: nil))
        }
        self?.finished()
      }
      return true
    }
    if started { receiveState(.connecting) }
  }

  /// Closes the client.
  public func stop() {
    client.close()
  }

  /// Sends a message (see ``ChatClient/send(_:)``).
  @discardableResult
  public func send(_ text: String) async throws -> UInt64? {
    try await client.send(text)
  }

  private func finished() {
    let reason = state.withLock { s -> String in
      if case .disconnected(let r) = s.pendingConnectionState ?? s.connectionState { return r }
      return "closed"
    }
    receiveState(.disconnected(reason: reason))
  }

  // MARK: Events

  /// Applies one client event (``start()`` feeds them; call it directly to drive the
  /// model from another source, such as a preview or a test).
  public func receive(_ event: ChatClient.Event) {
    switch event {
    case .message(let m):
      append([m])
    case .history(let messages, _, _):
      append(messages)
    case .presence(let p):
      let text: String
      switch p.kind {
      case .join: text = "\(p.author) joined"
      case .leave: text = "\(p.author) left"
      case .rename(let previous): text = "\(previous) is now \(p.author)"
      }
      appendNotice(text)
    case .gap:
      appendNotice("some messages may be missing")
    case .notice(let text):
      appendNotice(text)
    case .error(let error):
      appendNotice("error: \(error)")
    case .connected:
      receiveState(.connected)
    case .reconnecting(let attempt, let delay):
      receiveState(.reconnecting(attempt: attempt, at: .now + delay))
    case .disconnected(let reason, _):
      receiveState(.disconnected(reason: reason))
    case .viabilityChanged(let viable):
      schedule { $0.pendingViable = viable }
    case .reconnectSuggested, .ping, .pong:
      break
    }
  }

  private func append(_ messages: [ChatClient.Message]) {
    guard !messages.isEmpty else { return }
    schedule { s in
      for m in messages {
        s.pending.append(
          Item(
            id: s.nextItemID, kind: .message, messageID: m.id, author: m.author, text: m.text, isMine: m.isMine,
            color: m.color))
        s.nextItemID += 1
      }
    }
  }

  private func appendNotice(_ text: String) {
    schedule { s in
      s.pending.append(Item(id: s.nextItemID, kind: .notice, author: "", text: text, isMine: false))
      s.nextItemID += 1
    }
  }

  private func receiveState(_ connectionState: ConnectionState) {
    schedule { $0.pendingConnectionState = connectionState }
  }

  /// Records a change and makes sure a flush is coming, no sooner than the minimum
  /// interval after the last one.
  private func schedule(_ change: (inout State) -> Void) {
    let delay = state.withLock { s -> Duration? in
      change(&s)
      guard !s.flushScheduled else { return nil }
      s.flushScheduled = true
      return max(.zero, s.lastFlush + minimumInterval - .now)
    }
    guard let delay else { return }
    Task { [weak self] in
      if delay > .zero { try? await Task.sleep(for: delay) }
      self?.flush()
    }
  }

  /// Publishes what was gathered as one change per property.
  private func flush() {
    let (hasMessages, newState, newViable) = state.withLock { s in
      s.flushScheduled = false
      s.lastFlush = .now
      return (!s.pending.isEmpty, s.pendingConnectionState, s.pendingViable)
    }
    if hasMessages {
      registrar.withMutation(of: self, keyPath: \.messages) {
        state.withLock { s in
          s.messages.append(contentsOf: s.pending)
          s.pending.removeAll(keepingCapacity: true)
          if s.messages.count > maxItems { s.messages.removeFirst(s.messages.count - maxItems) }
        }
      }
    }
    if let newState {
      registrar.withMutation(of: self, keyPath: \.connectionState) {
        state.withLock { s in
          s.connectionState = newState
          if s.pendingConnectionState == newState { s.pendingConnectionState = nil }
        }
      }
    }
    if let newViable {
      registrar.withMutation(of: self, keyPath: \.isViable) {
        state.withLock { s in
          s.viable = newViable
          s.pendingViable = nil
        }
      }
    }
    state.withLock { $0.publishedUpdates += 1 }
  }
}
