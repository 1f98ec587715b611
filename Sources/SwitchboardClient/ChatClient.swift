import Synchronization

/// A chat client for every Switchboard transport, with reconnects, heartbeats, an
/// offline queue and (WebSocket) resume without loss.
///
/// ```swift
/// let client = try ChatClient(url: "ws://127.0.0.1:1337/", name: "ada", room: "dev")
/// try await client.run { session in
///   try await session.send("hello")          // returns once the server stored it
///   for await event in session.events {
///     if case .message(let m) = event { print("\(m.author): \(m.text)") }
///   }
/// }
/// ```
///
/// The API is scoped: ``run(isolation:_:)`` connects, keeps the connection (reconnecting
/// per ``Configuration/reconnect``) while `body` runs, and closes when `body` returns
/// or throws, when ``close()`` is called, or when the calling task is cancelled. A client
/// runs once.
///
/// Transports and dialects, chosen by the URL's scheme:
/// - `ws://host:port[/rooms/NAME]`: the WebSocket JSON protocol. Sends carry a `ref`
///   and complete on the server's `ack` (the message is stored) with its id. The client
///   tracks the last message id and the room's epoch; a reconnect asks for everything
///   after it (`?since=ID&epoch=E`, the query form of the `join` frame, so the one
///   `history` the server sends is the resume, with no window in between), drops what
///   it already delivered, and reports ``Event/gap(since:epoch:)`` when the server cannot
///   vouch that nothing is missing.
/// - `tcp://host:port` (and `tls://` over ``SwitchboardTLS``): the line dialect. The
///   client sends `iam:NAME` (and `/join ROOM`), then a `msg:TEXT` line per message (an
///   `emsg:` line, escaped, for a text with a line break: one message still); sends complete
///   once written to the socket, or with ``Configuration/lineSendCompletion`` `.handled`
///   once the server answered a `/who` sent after them. The dialect has no ids, so there
///   is no resume.
/// - `udp://host:port`: datagrams; the client first proves that it receives at its
///   address (it sends back the code the server offers, on its own), then `iam:NAME`; a
///   send completes when the server's `Server received:` echo arrives (the echo itself is
///   not an event).
/// - `wss://`: the WebSocket protocol over TLS (``Configuration/tls``).
///
/// An app's lifecycle (docs/CLIENT.md, "App lifecycle"): ``suspend()`` and ``resume()``
/// around the background, ``reconnectNow()``, network path changes
/// (``Configuration/pathMonitor``, ``networkPathChanged(_:)``), and ``resumePoint`` to hand to
/// the client of the next launch (`resumingFrom:`).
///
/// Sends made while disconnected wait (at most ``Configuration/maxQueuedMessages``)
/// and go out in order after the reconnect. A WebSocket message whose `ack` was lost
/// with the connection is not sent twice: if the resumed history holds it, its send
/// completes with that id.
public final class ChatClient: Sendable {
  /// Where the client connects.
  public let endpoint: ChatEndpoint
  /// The name the client joins with.
  public let name: String
  /// The room to join (`nil`: the URL's `/rooms/NAME`, else the server's default).
  public let room: String?
  /// Timeouts, reconnects, heartbeats, limits.
  public let configuration: Configuration

  let state: Mutex<ChatClientState>
  /// Ends the connection loop's waits (backoff, suspension) when the state changes.
  let wakeup = ChatWakeup()

  /// Creates a client; nothing connects until ``run(isolation:_:)``.
  /// - Parameters:
  ///   - url: `ws://`, `wss://`, `tcp://`, `tls://` or `udp://` URL, or a DNS-SD service as
  ///     `dnssd://INSTANCE._switchboard._tcp.local` (see ``ChatEndpoint/init(_:)``).
  ///   - name: The name to chat as.
  ///   - room: The room to join.
  ///   - configuration: Timeouts, reconnect policy, heartbeat, queue bound.
  ///   - resumingFrom: Where an earlier client left off (``ChatClient/resumePoint``): the
  ///     first connect replays what came after it (WebSocket; see ``ChatResumePoint``).
  /// - Throws: ``ChatClientError/invalidURL`` or ``ChatClientError/unsupportedScheme``.
  public convenience init(
    url: String, name: String, room: String? = nil, configuration: Configuration = Configuration(),
    resumingFrom: ChatResumePoint? = nil
  ) throws(ChatClientError) {
    self.init(
      endpoint: try ChatEndpoint(url), name: name, room: room, configuration: configuration,
      resumingFrom: resumingFrom)
  }

  /// Creates a client for a DNS-SD service, found by name before every connect
  /// (``Configuration/resolver``); nothing connects until ``run(isolation:_:)``.
  ///
  /// ```swift
  /// let client = try ChatClient(service: "Switchboard on mac", type: "_switchboard._tcp", name: "ada")
  /// ```
  /// - Parameters:
  ///   - service: The instance name, as `switchboard browse` shows it.
  ///   - type: `_switchboard._tcp` (lines, the default), `_switchboard._udp` (datagrams) or
  ///     `_http._tcp` (WebSocket, on the TXT `ws` port and `path`).
  ///   - name: The name to chat as.
  ///   - room: The room to join.
  ///   - configuration: Timeouts, reconnect policy, heartbeat, queue bound, resolver.
  ///   - resumingFrom: Where an earlier client left off (``ChatClient/resumePoint``; the
  ///     WebSocket type `_http._tcp` only, see ``ChatResumePoint``).
  /// - Throws: ``ChatClientError/invalidURL`` for a name or type DNS-SD cannot carry.
  public convenience init(
    service: String, type: String = ChatService.lineType, name: String, room: String? = nil,
    configuration: Configuration = Configuration(), resumingFrom: ChatResumePoint? = nil
  ) throws(ChatClientError) {
    let target = try ChatService(instance: service, type: type)
    self.init(
      endpoint: .service(target), name: name, room: room, configuration: configuration, resumingFrom: resumingFrom)
  }

  /// Creates a client for `endpoint` (an address or a ``ChatEndpoint/service(_:path:query:)``);
  /// nothing connects until ``run(isolation:_:)``. With `resumingFrom` (a saved
  /// ``ChatClient/resumePoint`` of the same room) the first connect already resumes: it
  /// replays exactly what came after the point, or reports ``Event/gap(since:epoch:)``.
  public init(
    endpoint: ChatEndpoint, name: String, room: String? = nil, configuration: Configuration = Configuration(),
    resumingFrom: ChatResumePoint? = nil
  ) {
    self.endpoint = endpoint
    self.name = name
    self.room = room
    self.configuration = configuration
    let me = name.trimmingWhitespace
    let roomName = room ?? endpoint.roomInPath ?? "lobby"
    var initial = ChatClientState(
      scheme: endpoint.scheme, me: me, room: roomName,
      confirmsLines: configuration.lineSendCompletion == .handled, features: configuration.features)
    if let resumingFrom { initial.seed(resumingFrom) }
    initial.renewsTokens = configuration.tokenProvider != nil
    self.state = Mutex(initial)
  }

  /// What ``run(isolation:_:)`` hands its body.
  public struct Session: Sendable {
    /// Everything that happens, in order; finishes when the client stops. Iterate from
    /// one task; it buffers without bound, so keep reading.
    public let events: AsyncStream<Event>
    /// The client.
    public let client: ChatClient

    /// Sends a message; see ``ChatClient/send(_:)``.
    @discardableResult
    public func send(_ text: String) async throws -> UInt64? { try await client.send(text) }

    /// Closes the client; see ``ChatClient/close()``.
    public func close() { client.close() }
  }

  // MARK: Running

  /// Connects and runs `body` with the session while the client keeps the connection
  /// up; closes when `body` returns or throws, or the task is cancelled.
  ///
  /// `body` usually iterates ``Session/events`` until it ends (after ``close()``, after
  /// ``ReconnectPolicy/maxAttempts``, after ``ReconnectPolicy/never`` and a lost
  /// connection, or after a refusal retrying cannot change: ``ChatRefusal``). Sends still
  /// waiting when the client stops fail with ``ChatClientError/closed`` (or the refusal).
  /// - Returns: What `body` returned.
  /// - Throws: ``ChatClientError/alreadyRunning`` when the client ran before, or what
  ///   `body` threw.
  public func run<R>(
    isolation: isolated (any Actor)? = #isolation, _ body: (Session) async throws -> R
  ) async throws -> R {
    let started = state.withLock { s -> Bool in
      guard case .idle = s.phase else { return false }
      s.phase = .running
      return true
    }
    guard started else { throw ChatClientError.alreadyRunning }
    let (events, continuation) = AsyncStream.makeStream(of: Event.self)
    let session = Session(events: events, client: self)
    return try await withThrowingTaskGroup(of: Void.self, returning: R.self, isolation: isolation) { group in
      group.addTask { await self.drive(continuation) }
      do {
        let result = try await body(session)
        close()
        group.cancelAll()
        return result
      } catch {
        close()
        group.cancelAll()
        throw error
      }
    }
  }

  /// Stops the client: closes the connection, stops reconnecting and ends the event
  /// stream. Sends still queued fail with ``ChatClientError/closed``. Safe to call from
  /// anywhere, more than once.
  public func close() {
    let connection = state.withLock { s -> (any ChatTransportConnection)? in
      switch s.phase {
      case .idle, .running, .suspended: s.phase = .stopping
      case .stopping, .stopped: break
      }
      return s.link.transport
    }
    // Before the close, so that the loop sees why the connection ended.
    wakeup.ring()
    connection?.close()
  }

  // MARK: Sending

  /// Sends `text` to the room, waiting for a connection if there is none.
  ///
  /// Completion means: WebSocket, the server stored it (its `ack`); TCP/TLS, written to
  /// the socket (or handled by the server, per ``Configuration/lineSendCompletion``); UDP, the server echoed it. Many tasks may send at once; messages leave
  /// in the order the calls were made. Cancelling the calling task does not withdraw a
  /// queued message.
  /// - Returns: The message's id (WebSocket), else `nil`.
  /// - Throws: ``ChatClientError/queueFull`` when ``Configuration/maxQueuedMessages``
  ///   messages are waiting; ``ChatClientError/closed`` when the client stopped
  ///   (``ChatClientError/gaveUp`` when it gave up reconnecting,
  ///   ``ChatClientError/refused`` when the server refused it for good);
  ///   ``ChatClientError/notStored`` when the server could not store it.
  @discardableResult
  public func send(_ text: String) async throws -> UInt64? {
    let limit = configuration.maxQueuedMessages
    return try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<UInt64?, any Error>) in
      let (kick, error) = state.withLock { s in s.enqueue(text, waiter: waiter, limit: limit) }
      if let error { waiter.resume(throwing: error) }
      kick?.yield()
    }
  }

  /// This client's name as the server confirmed it: the name it was made with until the
  /// server says otherwise — `alice (2)` when another `alice` is in the room of a server
  /// without tokens. Messages by this name are ``Message/isMine``.
  public var confirmedName: String { state.withLock { $0.me } }

  /// How many sent messages are waiting (unsent, or sent and not yet confirmed).
  public var queuedCount: Int { state.withLock { $0.queue.count } }

  /// The highest message id delivered so far (WebSocket), the resume point.
  public var lastMessageID: UInt64? { state.withLock { $0.lastID } }

  /// The room history's epoch last reported by the server (WebSocket).
  public var epoch: String? { state.withLock { $0.epoch } }
}

extension String {
  var trimmingWhitespace: String {
    var s = Substring(self)
    while let f = s.first, f.isWhitespace { s.removeFirst() }
    while let l = s.last, l.isWhitespace { s.removeLast() }
    return String(s)
  }
}
