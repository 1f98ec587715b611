/// Limits applied while decoding; every one is on by default.
///
/// What happens when a limit is exceeded (decoding throws, nothing is returned):
/// - input longer than ``maxMessageSize`` → ``DNSError/messageTooLarge``, before anything is read;
/// - more questions plus records than ``maxRecordCount`` in the header → ``DNSError/tooManyRecords``,
///   before any of them is decoded;
/// - a name that follows more than ``maxPointersPerName`` compression pointers →
///   ``DNSError/pointerLoop``.
///
/// Without a record limit a small packet could still cost a lot: a two-byte compression
/// pointer decodes to a name of up to 255 bytes, so 64 KiB of pointers would expand to
/// megabytes of names.
public struct DNSLimits: Sendable, Hashable {
  /// Default for ``maxMessageSize``: 65,535 bytes, the largest DNS message (RFC 1035 §4.2.2;
  /// mDNS over UDP stays under 9,000, RFC 6762 §17).
  public static let defaultMaxMessageSize = 65_535
  /// Default for ``maxRecordCount``: 1,024 questions and records together. An mDNS packet of
  /// 9,000 bytes holds at most about 800 records.
  public static let defaultMaxRecordCount = 1_024
  /// Most compression pointers one name may follow: 127, the most labels a 255-byte name
  /// can have. Encoders write at most one pointer per name; a longer chain only costs time.
  public static let maxPointersPerName = 127

  /// Largest message accepted, in bytes.
  public var maxMessageSize: Int
  /// Most questions plus answer, authority and additional records accepted in one message.
  public var maxRecordCount: Int

  /// Creates limits; every parameter defaults to the named default.
  public init(
    maxMessageSize: Int = DNSLimits.defaultMaxMessageSize,
    maxRecordCount: Int = DNSLimits.defaultMaxRecordCount
  ) {
    self.maxMessageSize = maxMessageSize
    self.maxRecordCount = maxRecordCount
  }

  /// The defaults: 65,535-byte messages, 1,024 questions and records.
  public static let `default` = DNSLimits()
}
