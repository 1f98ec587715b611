/// An incremental WebSocket frame decoder (RFC 6455 section 5.2).
///
/// Feed bytes with ``append(_:)-(UnsafeRawBufferPointer)`` and pull frames with
/// ``nextFrame()`` until it returns `nil` ("need more bytes"). Everything that can be
/// checked from a frame header is checked as soon as the header is complete, before
/// any payload is buffered:
///
/// - masking per role: a server requires masked frames, a client rejects them (1002);
/// - reserved opcodes (1002) and RSV bits no extension negotiated (1002);
/// - control frames over 125 bytes or fragmented (1002);
/// - a 64-bit length with the most significant bit set (1002);
/// - a payload over ``maxFrameSize`` (1009).
///
/// With ``checksMessages`` it also follows the messages the frames make up, and fails
/// as soon as the bytes that break a rule arrive rather than when the frame is complete:
///
/// - a continuation frame with no message in progress, or a new text or binary frame
///   while one is, fails at its header (1002);
/// - the payload of an uncompressed text message is validated as UTF-8 incrementally,
///   with one ``UTF8Validator`` carried across reads and fragments: an invalid byte fails
///   the connection (1007) the moment it is buffered, even in the middle of a frame, and a
///   final fragment that ends mid character fails when it is complete (1007).
///
/// Compressed messages (RSV1) are validated after inflation, by ``WebSocketConnection``.
/// Non-minimal length encodings are accepted. After an error every later call throws
/// the same error. The internal buffer is compacted as frames are consumed, so it does
/// not grow beyond roughly one frame plus one read.
public struct WebSocketFrameDecoder: Sendable {
  /// Which end of the connection is decoding; decides the masking rule.
  public let role: WebSocketRole
  /// The largest payload a single frame may declare; larger frames fail with 1009.
  public var maxFrameSize: Int
  /// Whether RSV1 may be set (permessage-deflate negotiated). RSV1 is still rejected on
  /// control frames and continuation frames, as RFC 7692 requires.
  public var allowsRSV1: Bool
  /// Whether fragment order and the UTF-8 of uncompressed text are checked as bytes
  /// arrive (see the type's overview).
  public let checksMessages: Bool
  /// Whether uncompressed text is validated as UTF-8 (with ``checksMessages``).
  public let validatesUTF8: Bool

  /// The data message the frames so far belong to (with ``checksMessages``).
  private enum Message {
    /// Between messages.
    case none
    /// An uncompressed text message: its payload is validated.
    case text
    /// A binary or compressed message: its payload is not this decoder's business.
    case opaque
  }

  /// Received bytes: `buffer[readIndex..<end]` are not consumed yet. The array's count is
  /// its storage's size (zeros past `end`), so emptying it and appending to it are an
  /// index and a copy, not the array's generic `removeAll` and `append(contentsOf:)`.
  @usableFromInline var buffer: [UInt8] = []
  private var readIndex = 0
  @usableFromInline var end = 0
  private var failure: WebSocketError?
  private var message = Message.none
  /// The UTF-8 state of the current text message, across frames and reads.
  private var validator = UTF8Validator()
  /// How many payload bytes of the incomplete frame at `readIndex` the validator has seen.
  private var validatedCount = 0

  /// Creates a decoder.
  /// - Parameters:
  ///   - role: This side's role (a server decodes client frames).
  ///   - maxFrameSize: The payload limit per frame (default 1 MiB).
  ///   - allowsRSV1: Whether permessage-deflate was negotiated (default `false`).
  ///   - checksMessages: Whether to check fragment order and validate uncompressed text
  ///     as it arrives (default `false`: frames only).
  ///   - validatesUTF8: Whether text is validated when `checksMessages` (default `true`).
  public init(
    role: WebSocketRole, maxFrameSize: Int = 1 << 20, allowsRSV1: Bool = false, checksMessages: Bool = false,
    validatesUTF8: Bool = true
  ) {
    self.role = role
    self.maxFrameSize = maxFrameSize
    self.allowsRSV1 = allowsRSV1
    self.checksMessages = checksMessages
    self.validatesUTF8 = validatesUTF8
  }

  /// The number of received bytes not yet consumed as frames.
  public var bufferedByteCount: Int { end - readIndex }

  /// Appends received bytes.
  public mutating func append(_ bytes: UnsafeRawBufferPointer) {
    guard bytes.count > 0 else { return }
    compact()
    if buffer.count < end + bytes.count { grow(toHold: bytes.count) }
    let start = end
    let needed = end + bytes.count
    buffer.withUnsafeMutableBytes { UnsafeMutableRawBufferPointer(rebasing: $0[start..<needed]).copyMemory(from: bytes) }
    end = needed
  }

  /// New storage, doubled (the first time: the size asked for, as an array grows) and
  /// holding the unconsumed bytes at its start, with room for `count` more.
  private mutating func grow(toHold count: Int) {
    let live = end - readIndex
    let size = max(live + count, 2 * buffer.count)
    let (from, old) = (readIndex, buffer)
    buffer = [UInt8](unsafeUninitializedCapacity: size) { out, initialized in
      let all = UnsafeMutableRawBufferPointer(out)
      if live > 0 { old.withUnsafeBytes { all.baseAddress!.copyMemory(from: $0.baseAddress! + from, byteCount: live) } }
      all.baseAddress!.advanced(by: live).initializeMemory(as: UInt8.self, repeating: 0, count: size - live)
      initialized = size
    }
    readIndex = 0
    end = live
  }

  /// Appends received bytes from any sequence.
  public mutating func append(contentsOf bytes: some Sequence<UInt8>) {
    Array(bytes).withUnsafeBytes { append($0) }
  }

  /// Capacity kept for the next frames once everything buffered was consumed; a larger
  /// buffer (left by a large frame) is given back, so an idle connection does not hold
  /// the largest frame it ever received.
  public static let retainedCapacity = 64 * 1024

  /// Drops consumed bytes: free when everything was consumed, otherwise a move only once
  /// the consumed prefix is large and at least half the buffer.
  private mutating func compact() {
    if readIndex == 0 { return }
    if readIndex == end {
      if buffer.count > Self.retainedCapacity { buffer = [] }
      readIndex = 0
      end = 0
    } else if readIndex >= 4096 && readIndex * 2 >= end {
      let (from, count) = (readIndex, end - readIndex)
      buffer.withUnsafeMutableBytes { all in
        all.baseAddress!.copyMemory(from: all.baseAddress! + from, byteCount: count)
      }
      readIndex = 0
      end = count
    }
  }

  /// Decodes the next complete frame.
  /// - Returns: The frame with its payload unmasked, or `nil` when more bytes are needed.
  /// - Throws: ``WebSocketError`` with close code 1002 or 1009 for an invalid frame.
  public mutating func nextFrame() throws(WebSocketError) -> WebSocketFrame? {
    switch try next(wholeTextUpTo: -1) {
    case .frame(let frame): frame
    // (Not made with a negative limit.)
    case .text(let text): WebSocketFrame(opcode: .text, payload: Array(text.utf8))
    case .textInPlace(let range): WebSocketFrame(opcode: .text, payload: withBytes(in: range) { Array($0) })
    case nil: nil
    }
  }

  /// What ``next(wholeTextUpTo:)`` decoded.
  package enum Decoded {
    /// Any frame, its payload an array.
    case frame(WebSocketFrame)
    /// A whole text message in one frame — final, uncompressed, not a continuation — whose
    /// payload went straight from the buffer (unmasked) into the string's storage: no
    /// payload array in between.
    case text(String)
    /// A whole text message as ``text(_:)``, left where it arrived: its payload unmasked
    /// and validated (so UTF-8) in the decoder's buffer, at these indices (read it with
    /// ``withBytes(in:_:)`` before the decoder is used again).
    case textInPlace(Range<Int>)
  }

  /// Lends `body` the bytes at `range` of the buffer: the payload of the
  /// ``Decoded/textInPlace(_:)`` the last ``next(wholeTextUpTo:inPlace:)`` returned.
  @inlinable
  package func withBytes<R>(in range: Range<Int>, _ body: (UnsafeRawBufferPointer) -> R) -> R {
    precondition(range.upperBound <= end, "withBytes: past the received bytes")
    return buffer.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[range])) }
  }

  /// Decodes the next complete frame, as ``nextFrame()`` does, except that a text frame that
  /// is a whole uncompressed message of at most `limit` bytes comes as ``Decoded/text(_:)``
  /// (a negative `limit`: never). The same checks, in the same order, with the same errors:
  /// only where the payload goes differs. (For ``WebSocketConnection``, whose text messages
  /// are strings: it saves an array's allocation, copy and release per message.) With
  /// `inPlace`, such a message comes as ``Decoded/textInPlace(_:)`` instead when this
  /// decoder validates text (``checksMessages`` and ``validatesUTF8``): unmasked in the
  /// buffer, with no storage of its own, and always UTF-8.
  package mutating func next(wholeTextUpTo limit: Int, inPlace: Bool = false) throws(WebSocketError) -> Decoded? {
    if inPlace, let text = nextShortText(upTo: limit) { return .textInPlace(text) }
    if let failure { throw failure }
    let available = end - readIndex
    guard available >= 2 else {
      if available == 0 && buffer.count > Self.retainedCapacity {
        // Everything was consumed: the end of a read's frames. Give a large frame's
        // buffer back now rather than at the next append, which may never come.
        buffer = []
        readIndex = 0
        end = 0
      }
      return nil
    }
    let start = readIndex
    let result: Result<Decoded?, WebSocketError> = buffer.withUnsafeMutableBytes { all in
      let bytes = UnsafeRawBufferPointer(rebasing: all[start..<end])
      let b0 = bytes[0]
      let b1 = bytes[1]
      let fin = b0 & 0x80 != 0
      let rsv1 = b0 & 0x40 != 0
      guard let opcode = WebSocketOpcode(rawValue: b0 & 0x0F) else {
        return .failure(.protocolError("reserved opcode \(b0 & 0x0F)"))
      }
      if b0 & 0x30 != 0 { return .failure(.protocolError("RSV2/RSV3 set without an extension")) }
      if rsv1 {
        if !allowsRSV1 { return .failure(.protocolError("RSV1 set without an extension")) }
        if opcode.isControl || opcode == .continuation {
          return .failure(.protocolError("RSV1 set on a control or continuation frame"))
        }
      }
      let masked = b1 & 0x80 != 0
      switch role {
      case .server where !masked: return .failure(.protocolError("unmasked frame from client"))
      case .client where masked: return .failure(.protocolError("masked frame from server"))
      default: break
      }
      let length7 = Int(b1 & 0x7F)
      if opcode.isControl {
        if !fin { return .failure(.protocolError("fragmented control frame")) }
        if length7 > 125 { return .failure(.protocolError("control frame payload over 125 bytes")) }
      }
      var validates = false
      if checksMessages {
        switch (opcode, message) {
        case (.continuation, .none):
          return .failure(.protocolError("continuation frame without a message"))
        case (.text, .text), (.text, .opaque), (.binary, .text), (.binary, .opaque):
          return .failure(.protocolError("new data frame while a fragmented message is in progress"))
        case (.text, .none):
          validates = validatesUTF8 && !rsv1
        case (.continuation, .text):
          validates = validatesUTF8
        default:
          break
        }
      }
      var offset = 2
      var length = UInt64(length7)
      if length7 == 126 {
        guard available >= 4 else { return .success(nil) }
        length = UInt64(bytes[2]) << 8 | UInt64(bytes[3])
        offset = 4
      } else if length7 == 127 {
        guard available >= 10 else { return .success(nil) }
        length = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 2, as: UInt64.self))
        if length & (1 << 63) != 0 { return .failure(.protocolError("64-bit length with the high bit set")) }
        offset = 10
      }
      if length > UInt64(maxFrameSize) {
        return .failure(.messageTooBig("frame of \(length) bytes over the limit of \(maxFrameSize)"))
      }
      let payloadCount = Int(length)
      var maskKey: UInt32 = 0
      if masked {
        guard available >= offset + 4 else { return .success(nil) }
        maskKey = UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        offset += 4
      }
      let arrived = min(available - offset, payloadCount)
      if arrived < payloadCount {
        // Part of a text frame: what arrived since the last look is unmasked into a
        // scratch buffer and validated, so an invalid sequence fails now, before the rest
        // of the frame is sent.
        if validates && arrived > validatedCount {
          let fresh = UnsafeRawBufferPointer(rebasing: bytes[(offset + validatedCount)..<(offset + arrived)])
          if !Self.validate(fresh, maskKey: masked ? maskKey : nil, at: validatedCount, with: &validator) {
            return .failure(.invalidUTF8("text message is not UTF-8"))
          }
          validatedCount = arrived
        }
        return .success(nil)
      }
      let source = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + payloadCount)])
      let decoded: Decoded
      if inPlace && validates && opcode == .text && fin && payloadCount <= limit {
        // The same checks as below, on the payload unmasked where it lies (only when this
        // decoder validates: the string path repairs what it does not check).
        let payloadStart = start + offset
        let payload = UnsafeMutableRawBufferPointer(rebasing: all[payloadStart..<(payloadStart + payloadCount)])
        if let error = Self.unmaskText(
          source, into: payload, key: masked ? maskKey : nil, validating: validates, from: validatedCount,
          with: &validator)
        {
          return .failure(error)
        }
        decoded = .textInPlace(payloadStart..<(payloadStart + payloadCount))
      } else if opcode == .text && fin && !rsv1 && payloadCount <= limit {
        // The payload straight into the string's storage, validated there (the string's own
        // check, which repairs what is invalid, then finds nothing to repair when `validates`).
        var failed: WebSocketError? = nil
        let text = String(unsafeUninitializedCapacity: payloadCount) { out in
          failed = Self.unmaskText(
            source, into: UnsafeMutableRawBufferPointer(out), key: masked ? maskKey : nil, validating: validates,
            from: validatedCount, with: &validator)
          return payloadCount
        }
        if let failed { return .failure(failed) }
        decoded = .text(text)
      } else {
        let payload = [UInt8](unsafeUninitializedCapacity: payloadCount) { out, initialized in
          if masked {
            WebSocketFrameEncoder.mask(
              source: source, destination: UnsafeMutableRawBufferPointer(out), key: maskKey)
          } else if payloadCount > 0 {
            UnsafeMutableRawBufferPointer(out).copyMemory(from: source)
          }
          initialized = payloadCount
        }
        if validates {
          // A whole frame: the rest is validated on the unmasked payload, with no scratch copy.
          let valid = payload.withUnsafeBytes { all in
            validator.validate(UnsafeRawBufferPointer(rebasing: all[validatedCount...]))
          }
          if !valid { return .failure(.invalidUTF8("text message is not UTF-8")) }
          if fin && !validator.isComplete { return .failure(.invalidUTF8("text message ends mid character")) }
        }
        decoded = .frame(
          WebSocketFrame(fin: fin, rsv1: rsv1, rsv2: false, rsv3: false, opcode: opcode, payload: payload))
      }
      readIndex += offset + payloadCount
      validatedCount = 0
      if checksMessages && !opcode.isControl {
        if fin {
          message = .none
        } else if opcode != .continuation {
          message = opcode == .text && !rsv1 ? .text : .opaque
        }
        if fin { validator.reset() }
      }
      return .success(decoded)
    }
    switch result {
    case .success(let frame):
      return frame
    case .failure(let error):
      failure = error
      throw error
    }
  }

  /// The frame a chat client sends nearly always, taken by a short path: from a client to
  /// this server, final, masked, text, no RSV bit, a payload of at most 125 bytes (a
  /// one-byte length) within `limit` and the frame limit, whole in the buffer, no message
  /// in progress, and this decoder validating. Unmasked in place and accepted when it is
  /// UTF-8 (ASCII by the unmasking's report, else checked); the payload's indices. `nil`,
  /// with nothing consumed or changed, for anything else — an invalid text is masked back
  /// — which the general path then decides with its own checks and errors.
  private mutating func nextShortText(upTo limit: Int) -> Range<Int>? {
    let start = readIndex
    guard end - start >= 6, failure == nil, role == .server, checksMessages, validatesUTF8, validatedCount == 0
    else { return nil }
    guard case .none = message else { return nil }
    let maxCount = min(limit, maxFrameSize, 125)
    return buffer.withUnsafeMutableBytes { all -> Range<Int>? in
      let b1 = all[start + 1]
      let count = Int(b1 & 0x7F)
      guard all[start] == 0x81, b1 & 0x80 != 0, count <= maxCount, end - start >= 6 + count else { return nil }
      let key = UInt32(bigEndian: all.loadUnaligned(fromByteOffset: start + 2, as: UInt32.self))
      let payload = UnsafeMutableRawBufferPointer(rebasing: all[(start + 6)..<(start + 6 + count)])
      let masked = UnsafeRawBufferPointer(payload)
      if !WebSocketFrameEncoder.maskReportingASCII(source: masked, destination: payload, key: key) {
        guard UTF8Validator.isValid(UnsafeRawBufferPointer(payload)) else {
          WebSocketFrameEncoder.mask(source: UnsafeRawBufferPointer(payload), destination: payload, key: key)
          return nil
        }
      }
      readIndex = start + 6 + count
      return (start + 6)..<(start + 6 + count)
    }
  }

  /// A whole text frame's payload unmasked (with `key`) or copied into `destination` — a
  /// string's storage, or the payload's own bytes — and, when `validates`, the part
  /// `validator` has not seen yet (from `position`) checked: `nil`, or the 1007 it fails
  /// with. ASCII is valid whatever came before it in the frame (a validated prefix of
  /// ASCII left the validator where it started: between characters, at a message's start),
  /// so the unmasking's ASCII report saves the validator's pass.
  private static func unmaskText(
    _ source: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer, key: UInt32?,
    validating validates: Bool, from position: Int, with validator: inout UTF8Validator
  ) -> WebSocketError? {
    var ascii = false
    if let key {
      ascii = WebSocketFrameEncoder.maskReportingASCII(source: source, destination: destination, key: key)
    } else if source.count > 0, source.baseAddress != UnsafeRawPointer(destination.baseAddress) {
      destination.copyMemory(from: source)
    }
    guard validates, !ascii else { return nil }
    if !validator.validate(UnsafeRawBufferPointer(rebasing: destination[position...])) {
      return .invalidUTF8("text message is not UTF-8")
    }
    return validator.isComplete ? nil : .invalidUTF8("text message ends mid character")
  }

  /// Feeds payload bytes that start `position` bytes into their frame to `validator`,
  /// unmasking them first (in chunks on the stack) when the frame is masked.
  private static func validate(
    _ bytes: UnsafeRawBufferPointer, maskKey: UInt32?, at position: Int, with validator: inout UTF8Validator
  ) -> Bool {
    guard let maskKey else { return validator.validate(bytes) }
    let chunk = 512
    return withUnsafeTemporaryAllocation(byteCount: chunk, alignment: 8) { scratch in
      var done = 0
      while done < bytes.count {
        let count = min(chunk, bytes.count - done)
        // The key as it stands at this byte of the payload: rotated by the phase.
        let shift = UInt32(8 * ((position + done) & 3))
        let key = shift == 0 ? maskKey : maskKey << shift | maskKey >> (32 - shift)
        WebSocketFrameEncoder.mask(
          source: UnsafeRawBufferPointer(rebasing: bytes[done..<(done + count)]), destination: scratch, key: key)
        if !validator.validate(UnsafeRawBufferPointer(rebasing: scratch[0..<count])) { return false }
        done += count
      }
      return true
    }
  }
}
