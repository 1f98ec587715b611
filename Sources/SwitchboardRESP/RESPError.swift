/// Why bytes are not RESP, or broke one of the ``RESPLimits``.
///
/// Open-enum style: compare with the static members (`error == .tooDeep` compares the kind
/// only) so kinds can be added later. ``message`` says what was found and where (the byte
/// offset from the start of the stream). After throwing one, a ``RESPDecoder`` stays failed:
/// a byte stream that went wrong once cannot be trusted to be in step again.
public struct RESPError: Error, Sendable, Hashable, CustomStringConvertible {
  private enum Code: Sendable, Hashable {
    case unknownType
    case malformedLength
    case malformedInteger
    case malformedDouble
    case malformedBoolean
    case malformedBigNumber
    case malformedVerbatim
    case malformedNull
    case missingCRLF
    case invalidLine
    case unsupportedStreaming
    case bulkTooLarge
    case tooManyElements
    case tooDeep
    case bufferFull
    case lineTooLong
  }

  private let code: Code
  /// What went wrong, with the stream offset where it was found.
  public let message: String

  private init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  /// `RESPError: <message>`.
  public var description: String { "RESPError: \(message)" }

  /// A value starts with a byte that is no RESP type (`+ - : $ * _ , # ( ! = % ~ > |`).
  public static let unknownType = RESPError(.unknownType, "unknown type byte")
  /// A length or count that is not a decimal number, is negative (other than RESP2's `-1`
  /// null), or does not fit an `Int`.
  public static let malformedLength = RESPError(.malformedLength, "malformed length")
  /// An integer reply that is not a decimal `Int64`.
  public static let malformedInteger = RESPError(.malformedInteger, "malformed integer")
  /// A double that is not decimal notation, `inf`, `-inf` or `nan`.
  public static let malformedDouble = RESPError(.malformedDouble, "malformed double")
  /// A boolean other than `#t` or `#f`.
  public static let malformedBoolean = RESPError(.malformedBoolean, "malformed boolean")
  /// A big number that is not an optional `-` and decimal digits.
  public static let malformedBigNumber = RESPError(.malformedBigNumber, "malformed big number")
  /// A verbatim string shorter than 4 bytes or without `:` after its format.
  public static let malformedVerbatim = RESPError(.malformedVerbatim, "malformed verbatim string")
  /// A RESP3 null (`_`) with something between `_` and its CRLF.
  public static let malformedNull = RESPError(.malformedNull, "malformed null")
  /// The bytes after a bulk string's announced length are not CRLF.
  public static let missingCRLF = RESPError(.missingCRLF, "missing CRLF after bulk data")
  /// A line holds a lone CR or LF.
  public static let invalidLine = RESPError(.invalidLine, "CR or LF inside a line")
  /// RESP3's streamed strings and aggregates (`$?`, `*?`): Redis never sends them, and they
  /// would need limits of their own.
  public static let unsupportedStreaming = RESPError(
    .unsupportedStreaming, "streamed types are not supported")
  /// A bulk string longer than ``RESPLimits/maxBulkLength``.
  public static let bulkTooLarge = RESPError(.bulkTooLarge, "bulk string too large")
  /// An aggregate announcing more than ``RESPLimits/maxAggregateCount`` elements.
  public static let tooManyElements = RESPError(.tooManyElements, "too many elements")
  /// Aggregates nested deeper than ``RESPLimits/maxDepth``.
  public static let tooDeep = RESPError(.tooDeep, "nested too deep")
  /// More than ``RESPLimits/maxBufferedBytes`` undecoded bytes.
  public static let bufferFull = RESPError(.bufferFull, "too many undecoded bytes")
  /// A line longer than ``RESPLimits/maxLineLength``.
  public static let lineTooLong = RESPError(.lineTooLong, "line too long")

  /// The same kind of error with a more specific message.
  func with(_ message: String) -> RESPError { RESPError(code, message) }

  /// Errors are equal when they are the same kind, whatever their messages.
  public static func == (lhs: RESPError, rhs: RESPError) -> Bool { lhs.code == rhs.code }

  /// Hashes the kind only, consistent with `==`.
  public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
