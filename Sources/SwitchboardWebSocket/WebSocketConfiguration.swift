/// Limits and checks for one WebSocket connection.
///
/// Every limit is on by default. When a frame header declares more than
/// ``maxFrameSize`` bytes, or a message (after decompression) grows past
/// ``maxMessageSize``, the connection sends close 1009 and finishes.
public struct WebSocketConfiguration: Sendable, Hashable {
  /// The largest payload one frame may carry (compressed size, if deflate is in use).
  public var maxFrameSize: Int
  /// The largest message, summed over its fragments and measured after decompression.
  public var maxMessageSize: Int
  /// Whether text messages and close reasons are checked to be UTF-8 (close code 1007).
  public var validateUTF8: Bool

  /// Creates a configuration.
  /// - Parameters:
  ///   - maxFrameSize: The per-frame payload limit; `nil` (the default) uses
  ///     `maxMessageSize`, so raising the message limit also admits single-frame
  ///     messages of that size.
  ///   - maxMessageSize: The per-message limit (default 1 MiB).
  ///   - validateUTF8: Whether to validate UTF-8 (default `true`).
  public init(maxFrameSize: Int? = nil, maxMessageSize: Int = 1 << 20, validateUTF8: Bool = true) {
    self.maxFrameSize = maxFrameSize ?? maxMessageSize
    self.maxMessageSize = maxMessageSize
    self.validateUTF8 = validateUTF8
  }

  /// The defaults: 1 MiB frames and messages, UTF-8 validated.
  public static let `default` = WebSocketConfiguration()
}
