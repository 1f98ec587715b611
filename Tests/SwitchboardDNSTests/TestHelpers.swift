@testable import SwitchboardDNS

/// A name from presentation text; the tests only use valid ones.
func name(_ text: String) -> DNSName {
  do { return try DNSName(text) } catch { fatalError("bad test name \(text): \(error)") }
}

/// A TXT from literal strings; the tests only use valid ones.
func txt(_ strings: String...) -> DNSTXT {
  do { return try DNSTXT(strings: strings) } catch { fatalError("bad test TXT \(strings): \(error)") }
}

/// The header of a message with the given section counts.
func header(id: UInt16 = 0, flags: UInt16 = 0, counts: [UInt16] = [0, 0, 0, 0]) -> [UInt8] {
  ([id, flags] + counts).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
}

/// A name in uncompressed wire form.
func wire(_ labels: String...) -> [UInt8] {
  labels.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) } + [0]
}

/// A two-byte compression pointer.
func pointer(_ offset: Int) -> [UInt8] { [0xC0 | UInt8(offset >> 8), UInt8(offset & 0xFF)] }

/// Type, class, TTL and rdata length of a record, then the rdata.
func recordTail(type: UInt16, rawClass: UInt16 = 1, ttl: UInt32 = 120, rdata: [UInt8], length: Int? = nil)
  -> [UInt8]
{
  let count = UInt16(length ?? rdata.count)
  return [UInt8(type >> 8), UInt8(type & 0xFF), UInt8(rawClass >> 8), UInt8(rawClass & 0xFF)]
    + [24, 16, 8, 0].map { UInt8((ttl >> $0) & 0xFF) } + [UInt8(count >> 8), UInt8(count & 0xFF)] + rdata
}

/// xorshift64*: a tiny deterministic generator so randomized tests replay exactly.
struct TestRandom: RandomNumberGenerator {
  private var state: UInt64
  init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }
  mutating func next() -> UInt64 {
    state ^= state >> 12
    state ^= state << 25
    state ^= state >> 27
    return state &* 0x2545_F491_4F6C_DD1D
  }
}
