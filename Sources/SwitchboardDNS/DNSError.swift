/// An error found while decoding a DNS message, or a value that cannot be put on the wire.
///
/// Open-enum style: compare with the static members (`error == .pointerLoop` compares the
/// kind only, ignoring the message) so kinds can be added later without breaking users. The
/// ``message`` says where it happened (a byte offset, the limit that was exceeded).
///
/// Decoding never crashes and never reads outside the input: every malformed packet ends in
/// one of these.
public struct DNSError: Error, Sendable, Hashable, CustomStringConvertible {
  private enum Code: Sendable, Hashable {
    case truncatedHeader
    case truncatedQuestion
    case truncatedRecord
    case truncatedRecordData
    case pointerLoop
    case forwardPointer
    case pointerOutOfBounds
    case labelTooLong
    case nameTooLong
    case badLabelType
    case countExceedsPacket
    case recordDataLengthMismatch
    case malformedRecordData
    case tooManyRecords
    case messageTooLarge
    case invalidName
    case invalidTXTEntry
  }

  private let code: Code
  /// A human-readable explanation, usually with the byte offset where decoding stopped.
  public let message: String

  private init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  /// `DNSError: <message>`.
  public var description: String { "DNSError: \(message)" }

  /// The message is shorter than the 12-byte header.
  public static let truncatedHeader = DNSError(.truncatedHeader, "message shorter than the 12-byte header")
  /// A question's name, type or class runs past the end of the message.
  public static let truncatedQuestion = DNSError(
    .truncatedQuestion, "question runs past the end of the message")
  /// A record's name or fixed fields (type, class, TTL, length) run past the end of the message.
  public static let truncatedRecord = DNSError(.truncatedRecord, "record runs past the end of the message")
  /// A record's rdata length reaches past the end of the message.
  public static let truncatedRecordData = DNSError(
    .truncatedRecordData, "record data runs past the end of the message")
  /// A compression pointer leads back into the name being read (a loop), or a name follows
  /// more compression pointers than any valid name needs (``DNSLimits/maxPointersPerName``).
  public static let pointerLoop = DNSError(.pointerLoop, "compression pointer loop")
  /// A compression pointer points at or after itself: compression only refers to an
  /// earlier occurrence of a name (RFC 1035 §4.1.4).
  public static let forwardPointer = DNSError(.forwardPointer, "forward compression pointer")
  /// A compression pointer points outside the message.
  public static let pointerOutOfBounds = DNSError(.pointerOutOfBounds, "compression pointer out of bounds")
  /// A label longer than 63 bytes (when building a name; on the wire such a length byte has
  /// the reserved label-type bits set and is a ``badLabelType``).
  public static let labelTooLong = DNSError(.labelTooLong, "label longer than 63 bytes")
  /// A name longer than 255 bytes in wire form (RFC 1035 §2.3.4), compression expanded.
  public static let nameTooLong = DNSError(.nameTooLong, "name longer than 255 bytes")
  /// A length byte whose top bits are `01` (the extended label type 0x40) or `10` (reserved 0x80).
  public static let badLabelType = DNSError(.badLabelType, "unsupported label type")
  /// The header's counts ask for more questions and records than the message could hold
  /// (a question takes at least 5 bytes, a record at least 11).
  public static let countExceedsPacket = DNSError(
    .countExceedsPacket, "section counts larger than the message can hold")
  /// A record's rdata length does not fit its type: A is 4 bytes, AAAA 16, SRV's name must end
  /// exactly at the end of the rdata, and so on.
  public static let recordDataLengthMismatch = DNSError(
    .recordDataLengthMismatch, "record data length does not match its type")
  /// The rdata has the right length but a broken structure (a TXT string running past the
  /// rdata, an NSEC bitmap window of length 0 or over 32).
  public static let malformedRecordData = DNSError(.malformedRecordData, "malformed record data")
  /// More questions and records than ``DNSLimits/maxRecordCount``.
  public static let tooManyRecords = DNSError(.tooManyRecords, "too many records")
  /// A message larger than ``DNSLimits/maxMessageSize``.
  public static let messageTooLarge = DNSError(.messageTooLarge, "message too large")
  /// A name given as text that is not a name: an empty label (`a..b`), a bad `\DDD` escape.
  public static let invalidName = DNSError(.invalidName, "invalid name")
  /// A TXT entry that cannot be built: empty, longer than 255 bytes, or a key that is empty,
  /// contains `=` or is not printable ASCII (RFC 6763 §6.4).
  public static let invalidTXTEntry = DNSError(.invalidTXTEntry, "invalid TXT entry")

  /// The same kind of error with a more specific message.
  func with(_ message: String) -> DNSError { DNSError(code, message) }

  /// Errors are equal when they are the same kind, whatever their messages.
  public static func == (lhs: DNSError, rhs: DNSError) -> Bool { lhs.code == rhs.code }

  /// Hashes the kind only, consistent with `==`.
  public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
