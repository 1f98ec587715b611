import Observation
import SwitchboardWire

/// A chat screen's state for an app: the transcript, the connection's state, who is in the
/// room and which rooms exist, on the main actor, observable with the Observation framework
/// (SwiftUI reads it directly; UIKit and AppKit code tracks it with
/// `withObservationTracking`), fed by a ``ChatClient`` it runs and can run again.
///
/// Everything happens on the main actor: the client's events are read there (its
/// ``ChatClient/run(isolation:_:)`` runs on the model's actor), and every change is
/// published there, so no observer has to hop. Updates are coalesced: events are gathered
/// and applied at most `maxUpdatesPerSecond` times a second (default 60), each application
/// being one observable change per property that changed, so a burst of 10,000 messages
/// costs a screen a few dozen redraws, not 10,000.
///
/// A ``ChatClient`` runs once, so the model keeps a way to make one: ``start()`` after
/// ``stop()`` runs a new client (and ``switchRoom(_:)`` one in another room). The transcript
/// is kept across a restart, and a message already in it (same room, same id) is not added
/// again when the new client's history repeats it.
///
/// ```swift
/// @State var model = ChatViewModel(url: "wss://chat.example/", name: "ada")
/// // .task { model.start() }
/// // List(model.messages) { item in Text(item.text) }
/// // List(model.members, id: \.self) { Text($0) }
/// try await model.send("hi")
/// model.switchRoom("dev")
/// model.stop()
/// ```
@MainActor @Observable
public final class ChatViewModel {
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
    /// A `/me` action: show it as `* AUTHOR TEXT`.
    public var isAction = false
    /// `.me` or `.other`, from ``isMine``.
    public var side: Side { isMine ? .me : .other }
  }

  /// Where the connection is.
  public enum ConnectionState: Sendable, Hashable {
    /// ``start()`` not called yet.
    case idle
    /// Connecting for the first time (after every ``start()``).
    case connecting
    /// Connected.
    case connected
    /// Waiting to reconnect: attempt `attempt` starts at `at`.
    case reconnecting(attempt: Int, at: ContinuousClock.Instant)
    /// Stopped (``stop()``, closed, the client gave up, or the server refused it for good:
    /// then `reason` is the server's, ``ChatRefusal/reason``); `reason` says why.
    case disconnected(reason: String)
  }

  /// Makes the client of a run: `room` is the room to join (`nil`: the URL's, else the
  /// server's default); `resumePoint` is where the last run in that room ended (or the one
  /// the model was made with, for its first run), where the next run picks up.
  typealias Maker = @Sendable (_ room: String?, _ resumePoint: ChatResumePoint?) throws(ChatClientError) -> ChatClient

  /// Whether a client runs, and which.
  private enum Run {
    /// Never started; `first` is the client given to ``init(client:maxUpdatesPerSecond:maxItems:)``.
    case idle(first: ChatClient?)
    /// Run `id`'s client is running (its events are applied; a stopped run's are not).
    case running(id: Int, client: ChatClient)
    /// Stopped, or the client ended; ``start()`` makes a new one.
    case stopped(previous: ChatClient?)
  }

  /// What the next flush publishes.
  struct Pending {
    var items: [Item] = []
    var clearTranscript = false
    var connectionState: ConnectionState?
    var viable: Bool?
    var members: [String]?
    var rooms: [ChatClient.RoomSummary]?
    var room: String?
    var typing: [String]?
  }

  /// A message as the transcript knows it, for the restart's duplicates.
  private struct MessageKey: Hashable {
    var room: String
    var id: UInt64
  }

  // MARK: Observable state

  /// The transcript, oldest first (at most ``maxItems`` rows).
  public private(set) var messages: [Item] = []
  /// The connection's state.
  public private(set) var connectionState = ConnectionState.idle
  /// `false` while the peer is not answering heartbeats.
  public private(set) var isViable = true
  /// Who is in the room, sorted: the server's answer to ``ChatClient/requestMembers()``
  /// (asked after every connect), kept current by the joins, leaves and renames seen since.
  public private(set) var members: [String] = []
  /// The rooms that have members, as the server last answered ``refreshRooms()``.
  public private(set) var rooms: [ChatClient.RoomSummary] = []
  /// Who is typing in the room, sorted (needs ``ChatClient/Feature/typing`` in the
  /// configuration's ``ChatClient/Configuration/features``): a name stays
  /// ``typingExpiry`` after its last start, and goes at once when the member stops, sends a
  /// message or leaves.
  public private(set) var typingMembers: [String] = []
  /// How long a name stays in ``typingMembers`` after its last start (default 6 s: a second
  /// more than the server's own 5 s, so a WebSocket stop normally comes first; a line
  /// server sends no stops).
  @ObservationIgnored public var typingExpiry = Duration.seconds(6)
  /// The room this model is in (or joins on ``start()``): the one asked for, else the URL's,
  /// else `lobby`; the server's name for it once it answered.
  public private(set) var room: String

  /// How many coalesced updates were published so far (diagnostics, tests).
  @ObservationIgnored public private(set) var publishedUpdates = 0
  /// The most transcript rows kept (older ones are dropped; default 10,000).
  @ObservationIgnored public let maxItems: Int

  @ObservationIgnored private let minimumInterval: Duration
  @ObservationIgnored private let makeClient: Maker
  @ObservationIgnored private var run: Run
  /// The room asked for (the init's, then ``switchRoom(_:)``'s); `nil`: the client's choice.
  @ObservationIgnored private var requestedRoom: String?
  @ObservationIgnored private var runs = 0
  /// The resume point the model was made with, until its first run takes it.
  @ObservationIgnored private var firstResumePoint: ChatResumePoint?
  @ObservationIgnored var pending = Pending()
  @ObservationIgnored private var flushTask: Task<Void, Never>?
  @ObservationIgnored private var lastFlush = ContinuousClock.now - .seconds(1)
  @ObservationIgnored private var nextItemID = 0
  /// The messages in the transcript (and pending) by room and id.
  @ObservationIgnored private var seen: Set<MessageKey> = []
  /// The last history epoch of each room: ids start over in a new one.
  @ObservationIgnored private var epochs: [String: String] = [:]
  /// ``members`` as the events since the last flush left it.
  @ObservationIgnored private var memberList: [String] = []
  /// How many `/who` (and `/rooms`) answers asked for by ``perform(_:)`` are still to come:
  /// those are shown in the transcript; the model's own (after every connect) are not.
  @ObservationIgnored private var membersAnswersToShow = 0
  @ObservationIgnored private var roomsAnswersToShow = 0
  /// Who is typing and until when (ChatViewModel+Typing.swift).
  @ObservationIgnored var typingUntil: [String: ContinuousClock.Instant] = [:]
  @ObservationIgnored var typingExpiryTask: Task<Void, Never>?

  // MARK: Making

  /// A model for a client of `url` (see
  /// ``ChatClient/init(url:name:room:configuration:resumingFrom:)``); every run makes a new
  /// client from these, and picks up where the last run in the same room ended.
  ///
  /// A `url` that cannot be parsed is reported at ``start()`` (a notice, and
  /// ``ConnectionState/disconnected(reason:)``), not thrown, so the model can be a stored
  /// property's initial value.
  /// - Parameter resumingFrom: Where the first run picks up: a
  ///   ``ChatClient/resumePoint`` the app saved (say, when it went to the background), so
  ///   the server sends exactly what was missed since.
  public convenience init(
    url: String, name: String, room: String? = nil, configuration: ChatClient.Configuration = .init(),
    resumingFrom: ChatResumePoint? = nil, maxUpdatesPerSecond: Int = 60, maxItems: Int = 10_000
  ) {
    let parsed = Result { () throws(ChatClientError) in try ChatEndpoint(url) }
    self.init(
      room: room, shownRoom: room ?? (try? parsed.get())?.roomInPath, first: nil, resumingFrom: resumingFrom,
      maxUpdatesPerSecond: maxUpdatesPerSecond, maxItems: maxItems
    ) { room, resumePoint throws(ChatClientError) in
      ChatClient(
        endpoint: try parsed.get(), name: name, room: room, configuration: configuration, resumingFrom: resumePoint)
    }
  }

  /// A model whose runs use clients made by `makeClient`, given the room to join: `nil` until
  /// ``switchRoom(_:)`` names one (the maker then chooses; ``room`` shows the made client's).
  ///
  /// ```swift
  /// let model = ChatViewModel { room throws(ChatClientError) in
  ///   try ChatClient(url: "wss://chat.example/", name: "ada", room: room ?? "lobby", configuration: settings)
  /// }
  /// ```
  public convenience init(
    maxUpdatesPerSecond: Int = 60, maxItems: Int = 10_000,
    makeClient: @escaping @Sendable (_ room: String?) throws(ChatClientError) -> ChatClient
  ) {
    self.init(
      room: nil, shownRoom: nil, first: nil, resumingFrom: nil, maxUpdatesPerSecond: maxUpdatesPerSecond,
      maxItems: maxItems
    ) {
      room, _ throws(ChatClientError) in try makeClient(room)
    }
  }

  /// A model whose first run is `client`; later runs (``start()`` after ``stop()``,
  /// ``switchRoom(_:)``) use a client made like it (same endpoint, name and configuration).
  public convenience init(client: ChatClient, maxUpdatesPerSecond: Int = 60, maxItems: Int = 10_000) {
    let endpoint = client.endpoint
    let name = client.name
    let configuration = client.configuration
    self.init(
      room: client.room, shownRoom: client.joinsRoom, first: client, resumingFrom: nil,
      maxUpdatesPerSecond: maxUpdatesPerSecond, maxItems: maxItems
    ) { room, resumePoint in
      ChatClient(endpoint: endpoint, name: name, room: room, configuration: configuration, resumingFrom: resumePoint)
    }
  }

  /// `room`: the room asked for; `shownRoom`: what ``room`` shows until a client says.
  private init(
    room: String?, shownRoom: String?, first: ChatClient?, resumingFrom: ChatResumePoint?, maxUpdatesPerSecond: Int,
    maxItems: Int, makeClient: @escaping Maker
  ) {
    self.firstResumePoint = resumingFrom
    self.maxItems = max(1, maxItems)
    self.minimumInterval = .seconds(1) / max(1, maxUpdatesPerSecond)
    self.makeClient = makeClient
    self.run = .idle(first: first)
    self.requestedRoom = room
    self.room = shownRoom ?? "lobby"
  }

  // MARK: Running

  /// The client of the current run (`nil` before ``start()`` and after ``stop()``).
  public var client: ChatClient? {
    if case .running(_, let client) = run { client } else { nil }
  }

  /// Connects: runs a client (a new one after ``stop()``) until ``stop()``; nothing when one
  /// is running. A client that cannot be made (a bad URL) leaves the model
  /// ``ConnectionState/disconnected(reason:)`` with the error as a notice.
  public func start() {
    let client: ChatClient
    switch run {
    case .running:
      return
    case .idle(let first?):
      client = first
    case .idle(nil), .stopped:
      // Where the last run's client ended, when the next one joins its room.
      var resumePoint = firstResumePoint
      if case .stopped(let last?) = run, requestedRoom == nil || requestedRoom == last.joinsRoom {
        resumePoint = last.resumePoint ?? resumePoint
      }
      firstResumePoint = nil
      do {
        client = try makeClient(requestedRoom, resumePoint)
      } catch {
        appendNotice("error: \(error)")
        setConnectionState(.disconnected(reason: "\(error)"))
        return
      }
    }
    runs += 1
    let id = runs
    run = .running(id: id, client: client)
    if client.joinsRoom != room { room = client.joinsRoom }
    setConnectionState(.connecting)
    // Inherits the main actor: the client's run and its events stay on it.
    Task { [weak self] in
      do {
        try await client.run { session in
          for await event in session.events {
            guard let self else { return }
            self.apply(event, run: id)
          }
        }
      } catch {
        self?.apply(.disconnected(reason: "\(error)", code: nil), run: id)
      }
      self?.finished(run: id)
    }
  }

  /// Disconnects: closes the running client (sends still queued fail with
  /// ``ChatClientError/closed``). ``start()`` connects again.
  public func stop() {
    guard case .running(_, let client) = run else { return }
    run = .stopped(previous: client)
    client.close()
    clearTyping()
    setConnectionState(.disconnected(reason: "stopped"))
  }

  /// Moves to `room`: stops the running client (if any) and starts one that joins `room`.
  /// The transcript and the member list start over with the new room's.
  public func switchRoom(_ room: String) {
    stop()
    // A client given to init(client:) and not yet run joins its own room: make one for `room`.
    if case .idle = run { run = .idle(first: nil) }
    requestedRoom = room
    self.room = room
    pending.items.removeAll()
    pending.clearTranscript = true
    seen.removeAll()
    memberList = []
    pending.members = []
    clearTyping()
    schedule()
    start()
  }

  /// Sends a message on the running client (see ``ChatClient/send(_:)``).
  /// - Throws: ``ChatClientError/closed`` when no client runs, or what the send threw.
  @discardableResult
  public func send(_ text: String) async throws -> UInt64? {
    guard let client else { throw ChatClientError.closed }
    return try await client.send(text)
  }

  /// Where the transcript ends: the running client's ``ChatClient/resumePoint``, else the last
  /// run's (WebSocket; `nil` on the line and UDP dialects). Save it when the app goes to the
  /// background and give it to the next launch's model (`init(url:…resumingFrom:)`).
  public var resumePoint: ChatResumePoint? {
    switch run {
    case .running(_, let client): client.resumePoint
    case .stopped(let previous): previous?.resumePoint ?? firstResumePoint
    case .idle(let first): first?.resumePoint ?? firstResumePoint
    }
  }

  /// Suspends the running client (``ChatClient/suspend()``): the connection closes politely,
  /// sends wait in the outbox, and nothing reconnects until ``resume()``. Call it when the
  /// app goes to the background; ``connectionState`` shows `disconnected("suspended")`.
  public func suspend() { client?.suspend() }

  /// Resumes a suspended client (``ChatClient/resume()``): it connects at once and picks up
  /// after the last message it had. Call it when the app is active again.
  public func resume() { client?.resume() }

  /// Drops the connection and connects again at once (``ChatClient/reconnectNow()``): a
  /// "retry now" button, or after the app learns the network changed.
  public func reconnectNow() { client?.reconnectNow() }

  /// Asks the server which rooms exist; ``rooms`` changes when it answers. Nothing when no
  /// client runs.
  public func refreshRooms() {
    try? client?.ask(.rooms)
  }

  /// Does what a person typed (``ChatInput``), as `nc`'s server would: a message is sent,
  /// `/join ROOM` is ``switchRoom(_:)``, `/who` and `/rooms` are asked and answered in the
  /// transcript (`in ROOM (N): a, b`, `rooms: dev (1)`), `/help` and a wrong command are
  /// answered there (``ChatInput/helpLines``, the problem), `/quit` is ``stop()``.
  /// `/history [N]` is asked (``ChatClient/requestHistory(limit:)``) and its answer shown as
  /// notices, `[ID] AUTHOR: TEXT`.
  /// - Throws: ``ChatClientError/unsupported`` for `/nick` (a model renames by making a
  ///   client with the new name); what ``send(_:)`` (or ``ChatClient/sendAction(_:)`` for
  ///   `/me`) throws.
  public func perform(_ input: ChatInput) async throws {
    switch input {
    case .message(let text):
      try await send(text)
    case .join(let room):
      switchRoom(room)
    case .who:
      guard let client else { throw ChatClientError.closed }
      membersAnswersToShow += 1
      try client.ask(.members)
    case .rooms:
      guard let client else { throw ChatClientError.closed }
      roomsAnswersToShow += 1
      try client.ask(.rooms)
    case .help:
      for line in ChatInput.helpLines { appendNotice(line) }
    case .invalid(let problem):
      appendNotice(problem)
    case .quit:
      stop()
    case .empty:
      break
    case .action(let text):
      guard let client else { throw ChatClientError.closed }
      try await client.sendAction(text)
    case .nick:
      throw ChatClientError.unsupported("/nick: this model cannot rename (make a client with the new name)")
    case .history(let count):
      guard let client else { throw ChatClientError.closed }
      // A request asks for at least one message: `/history 0` (which `nc` answers with none)
      // shows the last one.
      try await client.requestHistory(limit: max(count ?? HistoryRequest.defaultCount, 1))
    }
  }

  private func finished(run id: Int) {
    guard case .running(id, let client) = run else { return }
    run = .stopped(previous: client)
    if case .disconnected = pending.connectionState ?? connectionState { return }
    setConnectionState(.disconnected(reason: "closed"))
  }

  // MARK: Events

  /// Applies one client event (``start()`` feeds them; call it directly to drive the model
  /// from another source, such as a preview or a test).
  public func receive(_ event: ChatClient.Event) {
    switch event {
    case .message(let m):
      append([m])
      typingStopped(m.author)
    case .history(let messages, _, let epoch):
      if let epoch {
        let historyRoom = messages.first?.room ?? room
        if let known = epochs[historyRoom], known != epoch { seen = seen.filter { $0.room != historyRoom } }
        epochs[historyRoom] = epoch
      }
      append(messages)
    case .presence(let p):
      let text: String
      switch p.kind {
      case .join: text = "\(p.author) joined"
      case .leave: text = "\(p.author) left"
      case .rename(let previous): text = "\(previous) is now \(p.author)"
      }
      appendNotice(text)
      if p.room == nil || p.room == room {
        track(p)
        if case .rename(let previous) = p.kind {
          typingStopped(previous)
        } else if p.kind == .leave {
          typingStopped(p.author)
        }
      }
    case .members(let room, let names):
      if membersAnswersToShow > 0 {
        membersAnswersToShow -= 1
        appendNotice("in \(room) (\(names.count)): " + names.joined(separator: ", "))
      }
      memberList = names
      pending.members = names
      if room != self.room { pending.room = room }
      schedule()
    case .rooms(let rooms):
      if roomsAnswersToShow > 0 {
        roomsAnswersToShow -= 1
        appendNotice("rooms: " + rooms.map { "\($0.name) (\($0.members))" }.joined(separator: ", "))
      }
      pending.rooms = rooms
      schedule()
    case .recent(let messages):
      // Notices, not transcript items: a view of messages the transcript may hold already.
      for m in messages {
        let id = m.id.map { "[\($0)] " } ?? ""
        appendNotice(id + (m.isAction ? "* \(m.author.isEmpty ? "" : m.author + " ")\(m.text)" : "\(m.author): \(m.text)"))
      }
      if messages.isEmpty { appendNotice("no kept messages in \(room)") }
    case .gap:
      appendNotice("some messages may be missing")
    case .notice(let text):
      appendNotice(text)
    case .error(let error):
      appendNotice("error: \(error)")
      // Final: the client stopped; the state says why instead of a retry.
      if error == .refused { setConnectionState(.disconnected(reason: error.description)) }
    case .connected:
      setConnectionState(.connected)
      // Who is here now; the answer is a `.members` event (after the history, on a WebSocket).
      try? client?.ask(.members)
    case .reconnecting(let attempt, let delay):
      setConnectionState(.reconnecting(attempt: attempt, at: .now + delay))
    case .disconnected(let reason, let code):
      // A WebSocket server says it is going away with close 1001, a line server with a
      // notice (below): both are shown, as `nc` shows the notice.
      if code == .goingAway { appendNotice("server is going away" + (reason.isEmpty ? "" : ": \(reason)")) }
      setConnectionState(.disconnected(reason: reason))
      // Who was typing is unknown now; the next connection tells again.
      clearTyping()
    case .viabilityChanged(let viable):
      pending.viable = viable
      schedule()
    case .reconnectSuggested(let reason):
      // The line's own words (`server is going away: …`), or a JSON `going_away` error's.
      appendNotice(reason.hasPrefix("server is going away") ? reason : "server is going away: \(reason)")
    case .typing(let typingRoom, let author, let active):
      guard typingRoom == room else { break }
      if active { typingStarted(author) } else { typingStopped(author) }
    case .features:
      break
    case .ping, .pong:
      break
    }
  }

  /// An event of run `id`: applied while that run is the current one.
  private func apply(_ event: ChatClient.Event, run id: Int) {
    MainActor.assertIsolated("a client event reached the view model off the main actor")
    guard case .running(id, _) = run else { return }
    receive(event)
  }

  /// Keeps the member list current between answers to ``ChatClient/requestMembers()``.
  private func track(_ presence: ChatClient.Presence) {
    switch presence.kind {
    case .join:
      guard !memberList.contains(presence.author) else { return }
      memberList.append(presence.author)
    case .leave:
      // One entry: two members may show the same name on different nodes.
      guard let i = memberList.firstIndex(of: presence.author) else { return }
      memberList.remove(at: i)
    case .rename(let previous):
      if let i = memberList.firstIndex(of: previous) { memberList.remove(at: i) }
      if !memberList.contains(presence.author) { memberList.append(presence.author) }
    }
    memberList.sort()
    pending.members = memberList
    schedule()
  }

  private func append(_ messages: [ChatClient.Message]) {
    var added = false
    for m in messages {
      // A restarted run's history repeats what the transcript has.
      if let id = m.id, !seen.insert(MessageKey(room: m.room, id: id)).inserted { continue }
      pending.items.append(
        Item(
          id: nextItemID, kind: .message, messageID: m.id, author: m.author, text: m.text, isMine: m.isMine,
          color: m.color, isAction: m.isAction))
      nextItemID += 1
      added = true
    }
    if added { schedule() }
  }

  private func appendNotice(_ text: String) {
    pending.items.append(Item(id: nextItemID, kind: .notice, author: "", text: text, isMine: false))
    nextItemID += 1
    schedule()
  }

  private func setConnectionState(_ state: ConnectionState) {
    pending.connectionState = state
    schedule()
  }

  /// Makes sure a flush is coming, no sooner than the minimum interval after the last one.
  func schedule() {
    guard flushTask == nil else { return }
    let delay = max(.zero, lastFlush + minimumInterval - .now)
    flushTask = Task { [weak self] in
      if delay > .zero { try? await Task.sleep(for: delay) }
      self?.flush()
    }
  }

  /// Publishes what was gathered: one change per property that changed.
  private func flush() {
    flushTask = nil
    lastFlush = .now
    let next = pending
    pending = Pending()
    if next.clearTranscript || !next.items.isEmpty {
      var transcript = next.clearTranscript ? [] : messages
      transcript.append(contentsOf: next.items)
      if transcript.count > maxItems {
        for item in transcript.prefix(transcript.count - maxItems) {
          if let id = item.messageID { seen.remove(MessageKey(room: room, id: id)) }
        }
        transcript.removeFirst(transcript.count - maxItems)
      }
      messages = transcript
    }
    if let state = next.connectionState, state != connectionState { connectionState = state }
    if let viable = next.viable, viable != isViable { isViable = viable }
    if let members = next.members, members != self.members { self.members = members }
    if let rooms = next.rooms, rooms != self.rooms { self.rooms = rooms }
    if let room = next.room, room != self.room { self.room = room }
    if let typing = next.typing, typing != typingMembers { typingMembers = typing }
    publishedUpdates += 1
  }
}

extension ChatClient {
  /// The room this client joins: the one it was made with, else the URL's, else `lobby`.
  var joinsRoom: String { state.withLock { $0.room } }
}
