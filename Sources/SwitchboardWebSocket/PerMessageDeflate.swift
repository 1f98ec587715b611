/// The permessage-deflate extension (RFC 7692): compresses and decompresses whole
/// WebSocket messages with raw deflate.
///
/// Holds one compressor and one decompressor (zlib streams) chosen by role and the
/// negotiated ``Parameters``. The streams are reference-counted objects, so **copies of
/// this struct share them**: keep one codec per connection and use it from one thread.
///
/// Decompression is bounded: output past the caller's limit stops inflating at once
/// with close code 1009.
public struct PerMessageDeflate {
  /// This side's role; decides which half of the parameters applies to which direction.
  public let role: WebSocketRole
  /// The negotiated parameters.
  public let parameters: Parameters
  private let compressor: ZlibStream
  private let decompressor: ZlibStream

  /// Creates the codec for a negotiated extension.
  /// - Parameters:
  ///   - role: This side's role.
  ///   - parameters: The negotiated parameters.
  ///   - compressionLevel: zlib's level, 0–9, or -1 for its default (6).
  ///   - memoryLevel: zlib's memLevel, 1–9 (default 8); lower saves memory per connection.
  /// - Throws: ``WebSocketError/internal`` if zlib cannot be initialised.
  public init(
    role: WebSocketRole, parameters: Parameters, compressionLevel: Int = -1, memoryLevel: Int = 8
  ) throws(WebSocketError) {
    self.role = role
    self.parameters = parameters
    let sendBits = role == .server ? parameters.serverMaxWindowBits : parameters.clientMaxWindowBits
    compressor = try ZlibStream(
      kind: .deflate, windowBits: sendBits, level: Int32(compressionLevel), memLevel: Int32(memoryLevel))
    // Inflate with the full window: always able to read what the peer sends, even a
    // peer that substitutes 9 for 8 bits as zlib forces.
    decompressor = try ZlibStream(kind: .inflate, windowBits: 15)
  }

  /// Whether this side resets its compressor after every message.
  public var resetsCompressor: Bool {
    role == .server ? parameters.serverNoContextTakeover : parameters.clientNoContextTakeover
  }

  /// Whether the peer resets its compressor after every message (so we reset our
  /// decompressor too).
  public var resetsDecompressor: Bool {
    role == .server ? parameters.clientNoContextTakeover : parameters.serverNoContextTakeover
  }

  /// Compresses one message: deflate, sync flush, trailing `00 00 ff ff` removed. The
  /// result is the payload of a message whose first frame has RSV1 set.
  /// - Throws: ``WebSocketError/internal`` if zlib fails.
  public mutating func compress(_ message: UnsafeRawBufferPointer) throws(WebSocketError) -> [UInt8] {
    let output = try compressor.compress(message)
    if resetsCompressor { compressor.reset() }
    return output
  }

  /// Compresses one message.
  /// - Throws: ``WebSocketError/internal`` if zlib fails.
  public mutating func compress(_ message: [UInt8]) throws(WebSocketError) -> [UInt8] {
    try message.withBytes { (bytes) throws(WebSocketError) in try compress(bytes) }
  }

  /// Decompresses a whole compressed message payload.
  /// - Parameters:
  ///   - payload: The message payload (all fragments joined) as received.
  ///   - limit: The largest acceptable decompressed size.
  /// - Throws: 1009 once the output exceeds `limit`; 1002 for invalid compressed data.
  public mutating func decompress(_ payload: [UInt8], limit: Int) throws(WebSocketError) -> [UInt8] {
    var output: [UInt8] = []
    try payload.withBytes { (bytes) throws(WebSocketError) in
      try decompressFragment(bytes, into: &output, limit: limit)
    }
    try finishMessage(into: &output, limit: limit)
    return output
  }

  /// Decompresses one fragment of a message as it arrives, appending to `output`.
  /// Call ``finishMessage(into:limit:)`` after the final fragment.
  /// - Throws: 1009 once `output` exceeds `limit`; 1002 for invalid compressed data.
  public mutating func decompressFragment(
    _ fragment: UnsafeRawBufferPointer, into output: inout [UInt8], limit: Int
  ) throws(WebSocketError) {
    var none: UTF8Validator? = nil
    try inflate(fragment, into: &output, limit: limit, validator: &none)
  }

  /// Decompresses one fragment of a text message as it arrives, appending to `output`
  /// and validating the inflated bytes as UTF-8 chunk by chunk as they come out, with
  /// `validator` carried across fragments. Call
  /// ``finishTextMessage(into:limit:validator:)`` after the final fragment.
  /// - Throws: 1007 at the first invalid chunk (inflating stops there); 1009 once
  ///   `output` exceeds `limit`; 1002 for invalid compressed data.
  public mutating func decompressTextFragment(
    _ fragment: UnsafeRawBufferPointer, into output: inout [UInt8], limit: Int, validator: inout UTF8Validator
  ) throws(WebSocketError) {
    var some: UTF8Validator? = validator
    defer { if let some { validator = some } }
    try inflate(fragment, into: &output, limit: limit, validator: &some)
  }

  private mutating func inflate(
    _ fragment: UnsafeRawBufferPointer, into output: inout [UInt8], limit: Int, validator: inout UTF8Validator?
  ) throws(WebSocketError) {
    guard fragment.count > 0 else { return }
    do {
      try decompressor.decompress(fragment, into: &output, limit: limit, validator: &validator)
    } catch {
      decompressor.reset()
      throw error
    }
  }

  private static let trailer: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

  /// Ends a message: feeds the `00 00 ff ff` trailer the sender removed and resets the
  /// decompressor if the peer uses no context takeover.
  /// - Throws: 1009 once `output` exceeds `limit`; 1002 for invalid compressed data.
  public mutating func finishMessage(into output: inout [UInt8], limit: Int) throws(WebSocketError) {
    var none: UTF8Validator? = nil
    try finish(into: &output, limit: limit, validator: &none)
  }

  /// Ends a text message like ``finishMessage(into:limit:)``, validating what the trailer
  /// flushes out, and checks that the text ends on a whole character.
  /// - Throws: 1007 for invalid or unfinished UTF-8; 1009 once `output` exceeds `limit`;
  ///   1002 for invalid compressed data.
  public mutating func finishTextMessage(
    into output: inout [UInt8], limit: Int, validator: inout UTF8Validator
  ) throws(WebSocketError) {
    var some: UTF8Validator? = validator
    defer { if let some { validator = some } }
    try finish(into: &output, limit: limit, validator: &some)
    if some?.isComplete != true { throw .invalidUTF8("text message ends mid character") }
  }

  private mutating func finish(
    into output: inout [UInt8], limit: Int, validator: inout UTF8Validator?
  ) throws(WebSocketError) {
    try Self.trailer.withBytes { (bytes) throws(WebSocketError) in
      try inflate(bytes, into: &output, limit: limit, validator: &validator)
    }
    if resetsDecompressor { decompressor.reset() }
  }
}

@available(*, unavailable)
extension PerMessageDeflate: Sendable {}
