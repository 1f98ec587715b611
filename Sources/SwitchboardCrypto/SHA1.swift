/// SHA-1 (FIPS 180-4, RFC 3174) in portable Swift: a value that eats bytes and gives the
/// 20-byte digest.
///
/// Not for security: SHA-1 is broken for collisions. Two protocols fix it as a name, not a
/// defence: the WebSocket handshake's `Sec-WebSocket-Accept` (RFC 6455 §4.2.2) and Redis
/// script ids (`EVALSHA`). Both hash a few dozen bytes to a few kilobytes, so this plain
/// implementation is enough, and it needs no crypto library on any platform.
///
/// ```swift
/// let digest = SHA1.hash(Array("abc".utf8))  // a9993e36…
/// var sha = SHA1()
/// sha.update(part1); sha.update(part2)
/// let same = sha.finalize()
/// ```
public struct SHA1: Sendable {
  /// Bytes in a digest.
  public static let digestLength = 20
  /// Bytes in a block.
  static let blockLength = 64

  private var state: (UInt32, UInt32, UInt32, UInt32, UInt32) = (
    0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0
  )
  /// Input not yet hashed: less than one block.
  private var pending: [UInt8] = []
  /// Bytes given so far (the message length the padding ends with).
  private var length: UInt64 = 0

  /// A hash of nothing yet.
  public init() { pending.reserveCapacity(Self.blockLength) }

  /// The digest of `bytes`.
  public static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
    var sha = SHA1()
    sha.update(bytes)
    return sha.finalize()
  }

  /// The digest of `bytes` in lower-case hex (40 characters), as Redis names scripts.
  public static func hexDigest(_ bytes: some Sequence<UInt8>) -> String {
    let hex = Array("0123456789abcdef".utf8)
    return String(decoding: hash(bytes).flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 15)]] }, as: UTF8.self)
  }

  /// Adds `bytes` to the message.
  public mutating func update(_ bytes: some Sequence<UInt8>) {
    for byte in bytes {
      pending.append(byte)
      length &+= 1
      if pending.count == Self.blockLength {
        compress(pending)
        pending.removeAll(keepingCapacity: true)
      }
    }
  }

  /// The digest of everything given: pads the message (a 1 bit, zeros, the length in bits
  /// as 64-bit big-endian) and hashes the last blocks.
  public consuming func finalize() -> [UInt8] {
    let bits = length &* 8
    var tail = pending
    tail.append(0x80)
    while tail.count % Self.blockLength != 56 { tail.append(0) }
    for shift in stride(from: 56, through: 0, by: -8) {
      tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
    }
    for start in stride(from: 0, to: tail.count, by: Self.blockLength) {
      compress(tail[start..<(start + Self.blockLength)])
    }
    var digest: [UInt8] = []
    digest.reserveCapacity(Self.digestLength)
    for word in [state.0, state.1, state.2, state.3, state.4] {
      digest += [
        UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 8),
        UInt8(truncatingIfNeeded: word),
      ]
    }
    return digest
  }

  /// One 64-byte block into the state (FIPS 180-4 §6.1.2).
  private mutating func compress(_ block: some Collection<UInt8>) {
    var w = [UInt32](repeating: 0, count: 80)
    var index = block.startIndex
    for t in 0..<16 {
      var word: UInt32 = 0
      for _ in 0..<4 {
        word = word << 8 | UInt32(block[index])
        index = block.index(after: index)
      }
      w[t] = word
    }
    for t in 16..<80 { w[t] = rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1) }
    var (a, b, c, d, e) = state
    for t in 0..<80 {
      let f: UInt32
      let k: UInt32
      switch t {
      case 0..<20: (f, k) = ((b & c) | (~b & d), 0x5A82_7999)
      case 20..<40: (f, k) = (b ^ c ^ d, 0x6ED9_EBA1)
      case 40..<60: (f, k) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
      default: (f, k) = (b ^ c ^ d, 0xCA62_C1D6)
      }
      let temp = rotl(a, 5) &+ f &+ e &+ k &+ w[t]
      (e, d, c, b, a) = (d, c, rotl(b, 30), a, temp)
    }
    state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e)
  }

  private func rotl(_ x: UInt32, _ n: UInt32) -> UInt32 { x << n | x >> (32 - n) }
}
