/// Encodes WebSocket frames (RFC 6455 section 5.2) into wire bytes.
///
/// Server frames (no mask key) take a fast path: header plus one bulk copy of the
/// payload. Client frames are masked eight bytes at a time.
///
/// A mask key is written on the wire most significant byte first, so the RFC 6455
/// example key `37 fa 21 3d` is `maskKey: 0x37fa_213d`.
public enum WebSocketFrameEncoder {
  /// The number of header bytes a frame with this payload size needs.
  /// - Parameters:
  ///   - payloadCount: The payload length in bytes.
  ///   - masked: Whether the frame carries a 4-byte mask key.
  @inlinable
  public static func headerSize(payloadCount: Int, masked: Bool) -> Int {
    let base: Int
    if payloadCount <= 125 {
      base = 2
    } else if payloadCount <= 0xFFFF {
      base = 4
    } else {
      base = 10
    }
    return masked ? base + 4 : base
  }

  /// Encodes one frame.
  /// - Parameters:
  ///   - opcode: The frame's opcode.
  ///   - payload: The unmasked payload.
  ///   - fin: Whether this is the final frame of its message (default `true`).
  ///   - rsv1: The RSV1 bit (set for permessage-deflate compressed messages).
  ///   - maskKey: The mask key for client frames, or `nil` for unmasked server frames.
  /// - Returns: The frame's wire bytes.
  public static func encode(
    opcode: WebSocketOpcode, payload: [UInt8], fin: Bool = true, rsv1: Bool = false, maskKey: UInt32? = nil
  ) -> [UInt8] {
    payload.withUnsafeBytes { encode(opcode: opcode, payload: $0, fin: fin, rsv1: rsv1, maskKey: maskKey) }
  }

  /// Encodes one frame from raw payload bytes.
  /// - Parameters:
  ///   - opcode: The frame's opcode.
  ///   - payload: The unmasked payload.
  ///   - fin: Whether this is the final frame of its message (default `true`).
  ///   - rsv1: The RSV1 bit (set for permessage-deflate compressed messages).
  ///   - maskKey: The mask key for client frames, or `nil` for unmasked server frames.
  /// - Returns: The frame's wire bytes.
  public static func encode(
    opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, fin: Bool = true, rsv1: Bool = false,
    maskKey: UInt32? = nil
  ) -> [UInt8] {
    let header = headerSize(payloadCount: payload.count, masked: maskKey != nil)
    let total = header + payload.count
    return [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
      let raw = UnsafeMutableRawBufferPointer(buffer)
      writeHeader(
        into: raw, opcode: opcode, payloadCount: payload.count, fin: fin, rsv1: rsv1, maskKey: maskKey)
      let body = UnsafeMutableRawBufferPointer(rebasing: raw[header...])
      if let maskKey {
        mask(source: payload, destination: body, key: maskKey)
      } else if payload.count > 0 {
        body.copyMemory(from: payload)
      }
      initialized = total
    }
  }

  /// Appends one encoded frame to `buffer`, for batching several frames into one write.
  /// - Parameters:
  ///   - buffer: The buffer to append to.
  ///   - opcode: The frame's opcode.
  ///   - payload: The unmasked payload.
  ///   - fin: Whether this is the final frame of its message (default `true`).
  ///   - rsv1: The RSV1 bit.
  ///   - maskKey: The mask key for client frames, or `nil` for unmasked server frames.
  public static func append(
    into buffer: inout [UInt8], opcode: WebSocketOpcode, payload: [UInt8], fin: Bool = true,
    rsv1: Bool = false, maskKey: UInt32? = nil
  ) {
    payload.withUnsafeBytes {
      append(into: &buffer, opcode: opcode, payload: $0, fin: fin, rsv1: rsv1, maskKey: maskKey)
    }
  }

  /// Appends one encoded frame with raw payload bytes to `buffer`.
  /// - Parameters:
  ///   - buffer: The buffer to append to.
  ///   - opcode: The frame's opcode.
  ///   - payload: The unmasked payload.
  ///   - fin: Whether this is the final frame of its message (default `true`).
  ///   - rsv1: The RSV1 bit.
  ///   - maskKey: The mask key for client frames, or `nil` for unmasked server frames.
  public static func append(
    into buffer: inout [UInt8], opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, fin: Bool = true,
    rsv1: Bool = false, maskKey: UInt32? = nil
  ) {
    let header = headerSize(payloadCount: payload.count, masked: maskKey != nil)
    let start = buffer.count
    buffer.reserveCapacity(start + header + payload.count)
    // Header bytes: at most 14, appended through a small stack buffer.
    withUnsafeTemporaryAllocation(byteCount: 14, alignment: 1) { tmp in
      writeHeader(
        into: tmp, opcode: opcode, payloadCount: payload.count, fin: fin, rsv1: rsv1, maskKey: maskKey)
      buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: tmp[..<header]))
    }
    guard payload.count > 0 else { return }
    buffer.append(contentsOf: payload)
    if let maskKey {
      buffer.withUnsafeMutableBytes { all in
        let body = UnsafeMutableRawBufferPointer(rebasing: all[(start + header)...])
        mask(source: UnsafeRawBufferPointer(body), destination: body, key: maskKey)
      }
    }
  }

  /// XORs `source` with the mask key into `destination` (which may be the same memory),
  /// starting at key phase 0. Processes eight bytes per step.
  /// - Parameters:
  ///   - source: The input bytes.
  ///   - destination: Where the output goes; at least `source.count` bytes.
  ///   - key: The mask key, most significant byte first on the wire.
  public static func mask(
    source: UnsafeRawBufferPointer, destination: UnsafeMutableRawBufferPointer, key: UInt32
  ) {
    _ = maskReportingASCII(source: source, destination: destination, key: key)
  }

  /// ``mask(source:destination:key:)``, and whether every output byte is ASCII (below
  /// 0x80): the output's high bits are gathered on the way, a word at a time, so that a
  /// receiver can skip UTF-8 validation for ASCII text (any ASCII text is valid) without a
  /// second pass.
  static func maskReportingASCII(
    source: UnsafeRawBufferPointer, destination: UnsafeMutableRawBufferPointer, key: UInt32
  ) -> Bool {
    let count = source.count
    precondition(destination.count >= count)
    guard count > 0, let src = source.baseAddress, let dst = destination.baseAddress else { return true }
    // The key's bytes in wire order, as a word in memory order.
    let key32 = key.bigEndian
    let key64 = UInt64(key32) | (UInt64(key32) << 32)
    var seen: UInt64 = 0
    var i = 0
    // Sixteen bytes at a time first (one vector XOR and OR each), then words.
    if count >= 16 {
      // key64 twice, in memory order: the key's bytes four times over.
      let key128 = unsafeBitCast(SIMD2<UInt64>(repeating: key64), to: SIMD16<UInt8>.self)
      var seen128 = SIMD16<UInt8>()
      while i + 16 <= count {
        let vector = src.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self) ^ key128
        dst.storeBytes(of: vector, toByteOffset: i, as: SIMD16<UInt8>.self)
        seen128 |= vector
        i += 16
      }
      // Folded into the word the rest is OR-ed into (a vector compare here compiled to a
      // loop over the lanes; two 64-bit lanes OR-ed stay in registers).
      let lanes = unsafeBitCast(seen128, to: SIMD2<UInt64>.self)
      seen = lanes[0] | lanes[1]
    }
    while i + 8 <= count {
      let word = src.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ key64
      dst.storeBytes(of: word, toByteOffset: i, as: UInt64.self)
      seen |= word
      i += 8
    }
    if i + 4 <= count {
      let word = src.loadUnaligned(fromByteOffset: i, as: UInt32.self) ^ key32
      dst.storeBytes(of: word, toByteOffset: i, as: UInt32.self)
      seen |= UInt64(word)
      i += 4
    }
    // i is a multiple of 4 here, so the key phase restarts at byte 0.
    var phase = 0
    while i < count {
      let k = UInt8(truncatingIfNeeded: key >> (24 - 8 * phase))
      let byte = src.load(fromByteOffset: i, as: UInt8.self) ^ k
      dst.storeBytes(of: byte, toByteOffset: i, as: UInt8.self)
      seen |= UInt64(byte)
      i += 1
      phase += 1
    }
    return seen & 0x8080_8080_8080_8080 == 0
  }

  /// Writes the frame header (including the mask key, if any) at the start of `out`.
  @usableFromInline
  static func writeHeader(
    into out: UnsafeMutableRawBufferPointer, opcode: WebSocketOpcode, payloadCount: Int, fin: Bool,
    rsv1: Bool, maskKey: UInt32?
  ) {
    var first = opcode.rawValue
    if fin { first |= 0x80 }
    if rsv1 { first |= 0x40 }
    out[0] = first
    let maskBit: UInt8 = maskKey == nil ? 0 : 0x80
    var offset: Int
    if payloadCount <= 125 {
      out[1] = maskBit | UInt8(payloadCount)
      offset = 2
    } else if payloadCount <= 0xFFFF {
      out[1] = maskBit | 126
      out[2] = UInt8(truncatingIfNeeded: payloadCount >> 8)
      out[3] = UInt8(truncatingIfNeeded: payloadCount)
      offset = 4
    } else {
      out[1] = maskBit | 127
      let length = UInt64(payloadCount)
      for index in 0..<8 {
        out[2 + index] = UInt8(truncatingIfNeeded: length >> (56 - 8 * UInt64(index)))
      }
      offset = 10
    }
    if let maskKey {
      out.storeBytes(of: maskKey.bigEndian, toByteOffset: offset, as: UInt32.self)
      offset += 4
    }
  }
}
