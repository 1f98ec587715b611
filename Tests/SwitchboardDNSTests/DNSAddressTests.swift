import SwitchboardTestSupport
import Testing

@testable import SwitchboardDNS

@Suite(.onTestThreads) struct DNSAddressTests {
  @Test func ipv4ParsesAndPrints() {
    let address = DNSIPv4Address(10, 231, 7, 1)
    #expect(address.rawValue == 0x0AE7_0701)
    #expect(address.bytes == [10, 231, 7, 1])
    #expect(address.description == "10.231.7.1")
    #expect(DNSIPv4Address("10.231.7.1") == address)
    #expect(DNSIPv4Address(bytes: [10, 231, 7, 1]) == address)
    for bad in ["10.231.7", "10.231.7.256", "10..7.1", "1.2.3.4.5", "a.b.c.d", "1.2.3.0001", ""] {
      #expect(DNSIPv4Address(bad) == nil, "\(bad)")
    }
    #expect(DNSIPv4Address(bytes: [1, 2, 3]) == nil)
  }

  @Test(arguments: [
    ("fe80::5b:d0ff:fe00:1", "fe80::5b:d0ff:fe00:1"),
    ("2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"),
    ("2001:db8:0:1:0:0:0:1", "2001:db8:0:1::1"),  // the longest zero run
    ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),  // the first of equal runs
    ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"),  // a single zero group stays
    ("::", "::"), ("::1", "::1"), ("1::", "1::"),
    ("::ffff:10.0.0.1", "::ffff:a00:1"),
    ("FF02::FB", "ff02::fb"),
  ])
  func ipv6PrintsInRFC5952Form(text: String, expected: String) throws {
    let address = try #require(DNSIPv6Address(text))
    #expect(address.description == expected)
    #expect(DNSIPv6Address(expected) == address)
    #expect(DNSIPv6Address(bytes: address.bytes) == address)
  }

  @Test func ipv6RejectsMalformedText() {
    for bad in [
      "", ":", ":::", "1::2::3", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "12345::", "g::1", "fe80::1%eth0",
      "1:2:3:4:5:6:7::8",
    ] {
      #expect(DNSIPv6Address(bad) == nil, "\(bad)")
    }
    #expect(DNSIPv6Address(bytes: [UInt8](repeating: 0, count: 15)) == nil)
  }
}
