import CZlib

/// One zlib stream (raw deflate or raw inflate) at a stable address.
///
/// zlib keeps a back pointer to its `z_stream`, so the struct must never move: it is
/// allocated once here and freed (after `deflateEnd`/`inflateEnd`) in `deinit`.
final class ZlibStream {
  enum Kind {
    case deflate
    case inflate
  }

  let kind: Kind
  private let stream: UnsafeMutablePointer<z_stream>

  /// - Parameters:
  ///   - kind: Compressor or decompressor.
  ///   - windowBits: 8–15. zlib cannot open a raw deflater with 8, so 8 becomes 9, as
  ///     other zlib-based implementations do. That is still safe for a peer with a
  ///     256-byte window: zlib never emits distances beyond the window minus 262 bytes,
  ///     i.e. 250 with 9 bits.
  ///   - level: The compression level (-1 for zlib's default).
  ///   - memLevel: zlib's memLevel (1–9) for a deflater.
  init(kind: Kind, windowBits: Int, level: Int32 = -1, memLevel: Int32 = 8) throws(WebSocketError) {
    self.kind = kind
    stream = .allocate(capacity: 1)
    stream.initialize(to: z_stream())
    let bits = Int32(min(max(windowBits, 9), 15))
    let result: Int32
    switch kind {
    case .deflate: result = sb_deflateInit2(stream, level, -bits, memLevel)
    case .inflate: result = sb_inflateInit2(stream, -bits)
    }
    guard result == Z_OK else {
      stream.deinitialize(count: 1)
      stream.deallocate()
      throw .internal("zlib init failed (\(result))")
    }
  }

  deinit {
    switch kind {
    case .deflate: deflateEnd(stream)
    case .inflate: inflateEnd(stream)
    }
    stream.deinitialize(count: 1)
    stream.deallocate()
  }

  /// Forgets the sliding window (no context takeover).
  func reset() {
    switch kind {
    case .deflate: deflateReset(stream)
    case .inflate: inflateReset(stream)
    }
  }

  /// Compresses `input` with a sync flush and returns the output with the trailing
  /// `00 00 ff ff` removed.
  func compress(_ input: UnsafeRawBufferPointer) throws(WebSocketError) -> [UInt8] {
    precondition(kind == .deflate)
    // zlib writes into a scratch chunk that is appended in bulk: growing the array with
    // zero-filled elements costs one unspecialized generic call per byte in debug builds
    // (seconds for a 16 MiB message).
    let chunk = min(input.count + 64, Self.maxChunk)
    let scratch = UnsafeMutablePointer<Bytef>.allocate(capacity: chunk)
    defer { scratch.deallocate() }
    var output: [UInt8] = []
    output.reserveCapacity(min(input.count / 2 + 64, Self.maxChunk))
    stream.pointee.next_in = UnsafeMutablePointer(
      mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
    stream.pointee.avail_in = UInt32(input.count)
    defer {
      stream.pointee.next_in = nil
      stream.pointee.next_out = nil
    }
    while true {
      stream.pointee.next_out = scratch
      stream.pointee.avail_out = UInt32(chunk)
      let result = deflate(stream, Z_SYNC_FLUSH)
      output.append(contentsOf: UnsafeBufferPointer(start: scratch, count: chunk - Int(stream.pointee.avail_out)))
      guard result == Z_OK || result == Z_BUF_ERROR else { throw .internal("deflate failed (\(result))") }
      if stream.pointee.avail_out != 0 && stream.pointee.avail_in == 0 { break }
    }
    let produced = output.count
    if produced >= 4 && output[produced - 4] == 0 && output[produced - 3] == 0 && output[produced - 2] == 0xFF
      && output[produced - 1] == 0xFF
    {
      output.removeLast(4)
    }
    if output.isEmpty { output = [0x00] }  // RFC 7692 7.2.3.6: a lone 00 is an empty message
    return output
  }

  /// The largest scratch chunk zlib writes into per call (256 KiB).
  private static let maxChunk = 1 << 18

  /// Inflates `input`, appending to `output`, failing with 1009 as soon as `output`
  /// would exceed `limit` bytes. Never produces more than `limit + 1` bytes. With a
  /// `validator`, each chunk is validated as UTF-8 as it comes out, and invalid text
  /// stops inflating at once with 1007.
  func decompress(
    _ input: UnsafeRawBufferPointer, into output: inout [UInt8], limit: Int, validator: inout UTF8Validator?
  ) throws(WebSocketError) {
    precondition(kind == .inflate)
    stream.pointee.next_in = UnsafeMutablePointer(
      mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
    stream.pointee.avail_in = UInt32(input.count)
    // A scratch chunk appended in bulk, as in `compress`.
    let chunk = min(max(input.count * 4, 4096), Self.maxChunk)
    let scratch = UnsafeMutablePointer<Bytef>.allocate(capacity: chunk)
    defer {
      scratch.deallocate()
      stream.pointee.next_in = nil
      stream.pointee.next_out = nil
    }
    while true {
      let room = min(chunk, limit + 1 - output.count)
      if room <= 0 { throw .messageTooBig("decompressed message over the limit of \(limit) bytes") }
      stream.pointee.next_out = scratch
      stream.pointee.avail_out = UInt32(room)
      let result = inflate(stream, Z_SYNC_FLUSH)
      let left = Int(stream.pointee.avail_out)
      output.append(contentsOf: UnsafeBufferPointer(start: scratch, count: room - left))
      if output.count > limit {
        throw .messageTooBig("decompressed message over the limit of \(limit) bytes")
      }
      if validator?.validate(UnsafeRawBufferPointer(start: scratch, count: room - left)) == false {
        throw .invalidUTF8("text message is not UTF-8")
      }
      switch result {
      case Z_OK, Z_BUF_ERROR:
        // Output space left over means zlib consumed all the input it could.
        if left > 0 { return }
      case Z_STREAM_END:
        // The peer finished a deflate stream (BFINAL); the next data starts a new one.
        inflateReset(stream)
        if stream.pointee.avail_in == 0 { return }
      default:
        throw .protocolError("invalid compressed data")
      }
    }
  }
}
