import SwitchboardIO
import Testing

@testable import SwitchboardServer

/// The UDP port's address codes and the MAC under them, without sockets.
@Suite(.onTestThreads)
struct AddressCookieTests {
  /// The key of the SipHash paper's test vectors: bytes 00 … 0f.
  private let k0: UInt64 = 0x0706_0504_0302_0100
  private let k1: UInt64 = 0x0f0e_0d0c_0b0a_0908

  /// The reference implementation's vectors (message bytes 00, 01, … of each length), the
  /// 15-byte one being the paper's worked example.
  @Test(arguments: [
    (0, 0x726f_db47_dd0e_0e31 as UInt64), (1, 0x74f8_39c5_93dc_67fd), (8, 0x93f5_f579_9a93_2462),
    (15, 0xa129_ca61_49be_45e5),
  ])
  func sipHashMatchesThePublishedVectors(length: Int, expected: UInt64) {
    let message = (0..<length).map { UInt8($0) }
    #expect(SipHash24.hash(message, k0: k0, k1: k1) == expected)
    // Fed in pieces, the same MAC.
    var split = SipHash24(k0: k0, k1: k1)
    for byte in message { split.combine([byte]) }
    #expect(split.finalize() == expected)
  }

  @Test func aCodeIsGoodInItsSlotAndTheNextOnly() throws {
    let cookie = AddressCookie(k0: 1, k1: 2, slotLength: .seconds(10))
    let address = try SocketAddress(host: "192.0.2.7", port: 5000)
    let second: UInt64 = 1_000_000_000
    let code = cookie.code(for: address, now: 25 * second)
    #expect(code.count == 16 && code.allSatisfy(\.isHexDigit))
    #expect(cookie.accepts(code, from: address, now: 29 * second))
    #expect(cookie.accepts(code.uppercased(), from: address, now: 35 * second))
    #expect(!cookie.accepts(code, from: address, now: 40 * second))
    #expect(!cookie.accepts(code, from: address, now: 15 * second))
  }

  @Test func aCodeBelongsToOneAddressAndPortAndKey() throws {
    let cookie = AddressCookie(k0: 1, k1: 2)
    let address = try SocketAddress(host: "192.0.2.7", port: 5000)
    let code = cookie.code(for: address, now: 0)
    #expect(!cookie.accepts(code, from: address.withPort(5001), now: 0))
    #expect(!cookie.accepts(code, from: try SocketAddress(host: "192.0.2.8", port: 5000), now: 0))
    #expect(!cookie.accepts(code, from: try SocketAddress(host: "::ffff:192.0.2.7", port: 5000), now: 0))
    #expect(!AddressCookie(k0: 1, k1: 3).accepts(code, from: address, now: 0))
    for malformed in ["", "xyz", code + "0", String(code.dropLast()), " " + code.dropFirst()] {
      #expect(!cookie.accepts(malformed, from: address, now: 0))
    }
  }
}
