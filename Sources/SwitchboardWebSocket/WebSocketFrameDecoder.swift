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

  private var buffer: [UInt8] = []
  private var readIndex = 0
  private var failure: WebSocketError?

  /// Creates a decoder.
  /// - Parameters:
  ///   - role: This side's role (a server decodes client frames).
  ///   - maxFrameSize: The payload limit per frame (default 1 MiB).
  ///   - allowsRSV1: Whether permessage-deflate was negotiated (default `false`).
  public init(role: WebSocketRole, maxFrameSize: Int = 1 << 20, allowsRSV1: Bool = false) {
    self.role = role
    self.maxFrameSize = maxFrameSize
    self.allowsRSV1 = allowsRSV1
  }

  /// The number of received bytes not yet consumed as frames.
  public var bufferedByteCount: Int { buffer.count - readIndex }

  /// Appends received bytes.
  public mutating func append(_ bytes: UnsafeRawBufferPointer) {
    guard bytes.count > 0 else { return }
    compact()
    buffer.append(contentsOf: bytes)
  }

  /// Appends received bytes from any sequence.
  public mutating func append(contentsOf bytes: some Sequence<UInt8>) {
    compact()
    buffer.append(contentsOf: bytes)
  }

  /// Capacity kept for the next frames once everything buffered was consumed; a larger
  /// buffer (left by a large frame) is given back, so an idle connection does not hold
  /// the largest frame it ever received.
  public static let retainedCapacity = 64 * 1024

  /// Drops consumed bytes: free when everything was consumed, otherwise a move only once
  /// the consumed prefix is large and at least half the buffer.
  private mutating func compact() {
    if readIndex == 0 { return }
    if readIndex == buffer.count {
      if buffer.capacity > Self.retainedCapacity {
        buffer = []
      } else {
        buffer.removeAll(keepingCapacity: true)
      }
      readIndex = 0
    } else if readIndex >= 4096 && readIndex * 2 >= buffer.count {
      buffer.removeSubrange(0..<readIndex)
      readIndex = 0
    }
  }

  /// Decodes the next complete frame.
  /// - Returns: The frame with its payload unmasked, or `nil` when more bytes are needed.
  /// - Throws: ``WebSocketError`` with close code 1002 or 1009 for an invalid frame.
  public mutating func nextFrame() throws(WebSocketError) -> WebSocketFrame? {
    if let failure { throw failure }
    let available = buffer.count - readIndex
    guard available >= 2 else {
      if available == 0 && buffer.capacity > Self.retainedCapacity {
        // Everything was consumed: the end of a read's frames. Give a large frame's
        // buffer back now rather than at the next append, which may never come.
        buffer = []
        readIndex = 0
      }
      return nil
    }
    let result: Result<WebSocketFrame?, WebSocketError> = buffer.withUnsafeBytes { all in
      let bytes = UnsafeRawBufferPointer(rebasing: all[readIndex...])
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
      guard available - offset >= payloadCount else { return .success(nil) }
      let source = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + payloadCount)])
      let payload = [UInt8](unsafeUninitializedCapacity: payloadCount) { out, initialized in
        if masked {
          WebSocketFrameEncoder.mask(
            source: source, destination: UnsafeMutableRawBufferPointer(out), key: maskKey)
        } else if payloadCount > 0 {
          UnsafeMutableRawBufferPointer(out).copyMemory(from: source)
        }
        initialized = payloadCount
      }
      readIndex += offset + payloadCount
      return .success(
        WebSocketFrame(fin: fin, rsv1: rsv1, rsv2: false, rsv3: false, opcode: opcode, payload: payload))
    }
    switch result {
    case .success(let frame):
      return frame
    case .failure(let error):
      failure = error
      throw error
    }
  }
}
