/// Size limits applied while parsing; every one is on by default.
///
/// What happens when a limit is exceeded (the parser throws, and stays failed):
/// - start line longer than ``maxStartLineLength`` → ``HTTPError/startLineTooLong`` (414);
/// - header section larger than ``maxHeaderBytes`` → ``HTTPError/headersTooLarge`` (431);
/// - more than ``maxHeaderCount`` header lines → ``HTTPError/tooManyHeaders`` (431);
/// - `Content-Length` above ``maxBodySize`` → ``HTTPError/bodyTooLarge`` (413), decided from
///   the header alone, before any body byte is buffered.
///
/// Lengths count the line terminator (CRLF or LF).
public struct HTTPLimits: Sendable, Hashable {
  /// Default for ``maxStartLineLength``: 8 KiB.
  public static let defaultMaxStartLineLength = 8 * 1024
  /// Default for ``maxHeaderCount``: 100.
  public static let defaultMaxHeaderCount = 100
  /// Default for ``maxHeaderBytes``: 16 KiB.
  public static let defaultMaxHeaderBytes = 16 * 1024
  /// Default for ``maxBodySize``: 1 MiB.
  public static let defaultMaxBodySize = 1024 * 1024

  /// Longest request line or status line accepted, in bytes, terminator included.
  public var maxStartLineLength: Int
  /// Most header lines accepted in one message.
  public var maxHeaderCount: Int
  /// Largest header section accepted (every header line plus the final empty line), in bytes.
  public var maxHeaderBytes: Int
  /// Largest request body accepted, in bytes.
  public var maxBodySize: Int

  /// Creates limits; every parameter defaults to the named default.
  public init(
    maxStartLineLength: Int = HTTPLimits.defaultMaxStartLineLength,
    maxHeaderCount: Int = HTTPLimits.defaultMaxHeaderCount,
    maxHeaderBytes: Int = HTTPLimits.defaultMaxHeaderBytes,
    maxBodySize: Int = HTTPLimits.defaultMaxBodySize
  ) {
    self.maxStartLineLength = maxStartLineLength
    self.maxHeaderCount = maxHeaderCount
    self.maxHeaderBytes = maxHeaderBytes
    self.maxBodySize = maxBodySize
  }

  /// The defaults: 8 KiB start line, 100 headers, 16 KiB of headers, 1 MiB body.
  public static let `default` = HTTPLimits()
}
