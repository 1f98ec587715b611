/// SipHash-2-4 (Aumasson and Bernstein, 2012): a keyed 64-bit MAC for short inputs, as a
/// pure value type.
///
/// The UDP port's address cookies (``AddressCookie``) are made with it. Written here rather
/// than taken from OpenSSL because the server also builds on Apple platforms, where it
/// links no OpenSSL; and not Swift's `Hasher`, whose algorithm, output and seeding are
/// unspecified (it may change between releases, and its seed cannot be chosen), so it is
/// no MAC one can name or check against published vectors.
struct SipHash24: Sendable {
  private var v0: UInt64
  private var v1: UInt64
  private var v2: UInt64
  private var v3: UInt64
  /// Bytes not yet folded in (fewer than 8), little-endian in the low bits.
  private var tail: UInt64 = 0
  private var tailCount = 0
  private var length = 0

  /// A hasher under the 128-bit key `(k0, k1)` (the key's first and last 8 bytes, read
  /// little-endian).
  init(k0: UInt64, k1: UInt64) {
    v0 = k0 ^ 0x736f_6d65_7073_6575
    v1 = k1 ^ 0x646f_7261_6e64_6f6d
    v2 = k0 ^ 0x6c79_6765_6e65_7261
    v3 = k1 ^ 0x7465_6462_7974_6573
  }

  /// Appends `bytes` to the input.
  mutating func combine(_ bytes: some Sequence<UInt8>) {
    for byte in bytes {
      tail |= UInt64(byte) << (8 * UInt64(tailCount))
      tailCount += 1
      length += 1
      if tailCount == 8 {
        compress(tail)
        tail = 0
        tailCount = 0
      }
    }
  }

  /// The MAC of everything appended.
  consuming func finalize() -> UInt64 {
    compress(tail | (UInt64(truncatingIfNeeded: length) << 56))
    v2 ^= 0xff
    for _ in 0..<4 { round() }
    return v0 ^ v1 ^ v2 ^ v3
  }

  /// The MAC of `bytes` under `(k0, k1)`.
  static func hash(_ bytes: some Sequence<UInt8>, k0: UInt64, k1: UInt64) -> UInt64 {
    var h = SipHash24(k0: k0, k1: k1)
    h.combine(bytes)
    return h.finalize()
  }

  private mutating func compress(_ m: UInt64) {
    v3 ^= m
    round()
    round()
    v0 ^= m
  }

  private mutating func round() {
    v0 &+= v1
    v1 = v1.rotated(13) ^ v0
    v0 = v0.rotated(32)
    v2 &+= v3
    v3 = v3.rotated(16) ^ v2
    v0 &+= v3
    v3 = v3.rotated(21) ^ v0
    v2 &+= v1
    v1 = v1.rotated(17) ^ v2
    v2 = v2.rotated(32)
  }
}

extension UInt64 {
  fileprivate func rotated(_ n: UInt64) -> UInt64 { (self << n) | (self >> (64 - n)) }
}
