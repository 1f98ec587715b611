import SwitchboardTestSupport
import Testing

@testable import SwitchboardDNS

@Suite(.onTestThreads) struct DNSFlagsTests {
  @Test func accessorsReadAndWriteTheirBits() {
    var flags = DNSFlags.query
    flags.isResponse = true
    #expect(flags.rawValue == 0x8000)
    flags.isAuthoritative = true
    #expect(flags == .authoritativeResponse)
    flags.opcode = 5
    flags.responseCode = 3
    flags.isTruncated = true
    flags.recursionDesired = true
    flags.recursionAvailable = true
    flags.authenticData = true
    flags.checkingDisabled = true
    #expect(flags.rawValue == 0x8000 | 5 << 11 | 0x0400 | 0x0200 | 0x0100 | 0x0080 | 0x0020 | 0x0010 | 3)
    #expect(flags.opcode == 5 && flags.responseCode == 3)
    flags.opcode = 0xFF  // masked to 4 bits
    #expect(flags.opcode == 15)
    flags.isResponse = false
    #expect(!flags.isResponse && flags.isAuthoritative)
    #expect(DNSFlags(rawValue: 0x8400).description == "qr aa opcode=0 rcode=0")
  }

  @Test func reservedBitSurvivesARoundTrip() throws {
    let message = DNSMessage(id: 7, flags: DNSFlags(rawValue: 0x0040))
    #expect(try DNSMessage(decoding: message.encode()).flags.rawValue == 0x0040)
  }
}
