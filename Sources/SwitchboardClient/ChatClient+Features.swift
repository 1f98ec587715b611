extension ChatClient {
  /// A protocol feature a client may ask the server for (docs/PROTOCOLS.md, the
  /// `features` frame). A name the server does not know is ignored by it, so a client may ask
  /// for features a server has not got yet.
  public struct Feature: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The name on the wire (`typing`).
    public var rawValue: String

    /// A feature by its wire name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Typing indicators: ``Event/typing(room:author:active:)`` events, and
    /// ``ChatClient/setTyping(_:)`` reaching the room.
    public static let typing = Feature(rawValue: "typing")

    /// The wire name.
    public var description: String { rawValue }
  }

  /// What the server said it speaks: the answer to the features the client asked for
  /// (``Configuration/features``), after every connect, as ``Event/features(_:)`` and
  /// ``ChatClient/serverFeatures``.
  public struct ServerFeatures: Sendable, Hashable {
    /// The protocol version the server named (`2` for the first with negotiation); `nil`
    /// when it named none: a server older than negotiation (it answered `unknown_type`, or a
    /// line server `! unknown command`), or a line server's `* typing notices on|off`.
    public var version: Int?
    /// Every feature the server has.
    public var supported: Set<Feature>
    /// The features this connection now gets.
    public var enabled: Set<Feature>

    /// Creates a description of a server's features.
    public init(version: Int? = nil, supported: Set<Feature> = [], enabled: Set<Feature> = []) {
      self.version = version
      self.supported = supported
      self.enabled = enabled
    }

    /// A server older than negotiation: it speaks none of the features.
    public static let none = ServerFeatures()

    /// Whether the server has `feature` (whether or not this connection enabled it).
    public func supports(_ feature: Feature) -> Bool { supported.contains(feature) }
  }
}
