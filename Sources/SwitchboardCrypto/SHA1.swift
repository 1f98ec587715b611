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

  private var state: (UInt32, UInt32, UInt32, UInt32, UInt32) = (
    0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0
  )
  /// Input not yet hashed.
  private var blocks = BlockBuffer()

  /// A hash of nothing yet.
  public init() {}

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
    var blocks = BlockBuffer.taken(from: &self.blocks)
    blocks.update(bytes) { compress($0) }
    self.blocks = blocks
  }

  /// The digest of everything given: pads the message (``BlockBuffer/finalize(_:)``) and
  /// hashes the last blocks.
  public consuming func finalize() -> [UInt8] {
    var blocks = BlockBuffer.taken(from: &self.blocks)
    blocks.finalize { compress($0) }
    return BlockBuffer.bigEndian([state.0, state.1, state.2, state.3, state.4])
  }

  /// One 64-byte block into the state (FIPS 180-4 §6.1.2).
  private mutating func compress(_ block: ArraySlice<UInt8>) {
    var w = [UInt32](repeating: 0, count: 80)
    BlockBuffer.loadWords(block, into: &w)
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
