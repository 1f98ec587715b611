/// A ``ChatClient``'s side of feature negotiation and typing indicators, kept in
/// ``ChatClientState`` (under its lock): what was asked for, what the server answered, and
/// whether this member is typing and when it last said so.
struct ChatTypingState: Sendable {
  /// Where the connection's negotiation stands.
  enum Negotiation: Sendable, Equatable {
    /// Nothing asked on this connection (no features configured, or UDP).
    case notAsked
    /// Asked (`features` frame, `/typing on` line); the answer has not come.
    case asked
    /// The server answered (an older server's refusal reads as ``ChatClient/ServerFeatures/none``).
    case answered(ChatClient.ServerFeatures)
  }

  /// The features the configuration asks for.
  let requested: Set<ChatClient.Feature>
  let scheme: ChatEndpoint.Scheme
  var negotiation = Negotiation.notAsked
  /// The last answer of any connection (kept across a reconnect until the next answer).
  var serverFeatures: ChatClient.ServerFeatures?
  /// Whether this member said it is typing and has not stopped (nor sent a message).
  var isActive = false
  /// When the last `active:true` (or `/typing`) was handed to the writer. Kept across a
  /// stop and a message: the server relays at most one start a second per member, counted
  /// from its last start whatever came between, and drops the rest.
  var lastSent: ContinuousClock.Instant?
  /// The typing frame or line the writer sends next.
  var pendingWire: String?

  /// The least time between two typing signals while typing (the server relays at most one
  /// a second per member, and drops the rest).
  static let interval = Duration.seconds(1)

  init(requested: Set<ChatClient.Feature>, scheme: ChatEndpoint.Scheme) {
    self.requested = requested
    self.scheme = scheme
  }

  /// Whether this connection asks for anything: WebSocket with any feature (a `features`
  /// frame), tcp/tls with typing (`/typing on`); UDP never.
  var asks: Bool {
    switch scheme {
    case .ws, .wss: !requested.isEmpty
    case .tcp, .tls: requested.contains(.typing)
    case .udp: false
    }
  }

  /// What to send first on a new WebSocket connection (`nil`: nothing); the line dialect
  /// asks in its hello instead (``helloLines``).
  var webSocketHello: String? {
    guard asks, scheme == .ws || scheme == .wss else { return nil }
    return ChatWire.featuresFrame(requested)
  }

  /// The lines a tcp/tls hello ends with.
  var helloLines: [String] {
    asks && (scheme == .tcp || scheme == .tls) ? [ChatWire.typingOnLine] : []
  }

  /// A connection opened: its answer is awaited; typing starts over (the server forgot it).
  mutating func connected() {
    negotiation = asks ? .asked : .notAsked
    isActive = false
    lastSent = nil
    pendingWire = nil
  }

  /// The server answered: returns the event to report.
  mutating func answered(_ features: ChatClient.ServerFeatures) -> ChatClient.Event {
    negotiation = .answered(features)
    serverFeatures = features
    return .features(features)
  }

  /// Whether typing notices are on for this line connection (`* NAME is typing` lines are
  /// typing events, not notices).
  var linesEnabled: Bool {
    guard scheme == .tcp || scheme == .tls, case .answered(let features) = negotiation else { return false }
    return features.enabled.contains(.typing)
  }

  /// Whether the current connection's server speaks typing.
  var serverSpeaksTyping: Bool {
    guard case .answered(let features) = negotiation else { return false }
    return features.supports(.typing)
  }

  /// The member typed (`active`) or stopped: whether a signal is now pending for the writer.
  /// Nothing on UDP or toward a server that does not speak typing; at most one `true` a
  /// second (a keystroke sooner is not sent: the next one after the second is); `false`
  /// once on stop (WebSocket; the line dialect has no stop: the server's expiry ends it).
  mutating func set(_ active: Bool, now: ContinuousClock.Instant) -> Bool {
    guard scheme != .udp, serverSpeaksTyping else { return false }
    let isLine = scheme == .tcp || scheme == .tls
    if active {
      isActive = true
      if let lastSent, now - lastSent < Self.interval { return false }
      lastSent = now
      pendingWire = isLine ? ChatWire.typingLine : ChatWire.typingFrame(active: true)
      return true
    }
    guard isActive else { return false }
    isActive = false
    if isLine {
      pendingWire = nil
      return false
    }
    pendingWire = ChatWire.typingFrame(active: false)
    return true
  }

  /// A message is being sent: the server ends the typing state on its own then.
  mutating func messageSent() {
    isActive = false
    if pendingWire == ChatWire.typingFrame(active: false) { pendingWire = nil }
  }

  /// The signal the writer sends next, taken.
  mutating func takeWire() -> String? {
    defer { pendingWire = nil }
    return pendingWire
  }
}
