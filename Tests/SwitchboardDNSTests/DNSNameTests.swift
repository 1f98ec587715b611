import SwitchboardTestSupport
import Testing

@testable import SwitchboardDNS

@Suite(.onTestThreads) struct DNSNameTests {
  @Test func parsesAndPrintsPresentationForm() throws {
    let instance = try DNSName("My Room\\.v2 ☕._switchboard._tcp.local.")
    #expect(
      instance.labels == [
        Array("My Room.v2 ☕".utf8), Array("_switchboard".utf8), Array("_tcp".utf8), Array("local".utf8),
      ])
    #expect(instance.description == "My Room\\.v2 ☕._switchboard._tcp.local.")
    #expect(try DNSName(instance.description).labels == instance.labels)
    #expect(try DNSName("a.b").labels == (try DNSName("a.b.").labels))
  }

  @Test func escapesBackslashControlBytesAndInvalidUTF8() throws {
    let odd = try DNSName(labels: [[UInt8(ascii: "a"), 0x5C, 0x00, 0x7F, 0x0A], [0xFF, 0x41, 0x2E]])
    #expect(odd.description == "a\\\\\\000\\127\\010.\\255A\\..")
    #expect(try DNSName(odd.description).labels == odd.labels)
    #expect(try DNSName("\\065\\066C").labels == [Array("ABC".utf8)])
  }

  @Test func avahiStyleMatchesAvahiBrowse() throws {
    // avahi-browse -p printed exactly this for the captured instance (capture-fixtures.sh).
    let instance = try DNSName(labels: ["Avahi Chat.v2 ☕", "_switchboard", "_tcp", "local"])
    #expect(instance.formatted(.avahi) == "Avahi\\032Chat\\.v2\\032\\226\\152\\149._switchboard._tcp.local")
    #expect(try DNSName(instance.formatted(.avahi)) == instance)
  }

  @Test func rootName() throws {
    #expect(DNSName.root.isRoot)
    #expect(DNSName.root.description == ".")
    #expect(try DNSName(".") == .root)
    #expect(try DNSName("") == .root)
    #expect(DNSName.root.wireLength == 1)
  }

  @Test func comparesIgnoringASCIICaseOnly() throws {
    #expect(name("Switchboard.LOCAL") == name("switchboard.local"))
    #expect(name("Switchboard.LOCAL").hashValue == name("switchboard.local").hashValue)
    #expect(name("Straße.local") != name("STRASSE.local"))
    #expect(name("É.local") != name("é.local"))  // UTF-8 bytes compare exactly
    #expect(name("Switchboard.LOCAL").description == "Switchboard.LOCAL.")  // case kept
  }

  @Test(arguments: ["a..b", ".a", "a\\", "a\\12", "a\\256"])
  func rejectsInvalidText(_ text: String) {
    #expect(throws: DNSError.invalidName) { try DNSName(text) }
  }

  @Test func labelsAreAtMost63Bytes() throws {
    #expect(try DNSName(labels: [String(repeating: "x", count: 63)]).wireLength == 65)
    #expect(throws: DNSError.labelTooLong) { try DNSName(labels: [String(repeating: "x", count: 64)]) }
    #expect(throws: DNSError.labelTooLong) { try DNSName(String(repeating: "x", count: 64) + ".local") }
    #expect(throws: DNSError.invalidName) { try DNSName(labels: [[UInt8]()]) }
  }

  @Test func namesAreAtMost255BytesOnTheWire() throws {
    // 3 labels of 63 + 1 of 61: 4 length bytes + 250 + root = 255.
    let longest =
      [String](repeating: String(repeating: "x", count: 63), count: 3) + [String(repeating: "y", count: 61)]
    #expect(try DNSName(labels: longest).wireLength == 255)
    #expect(throws: DNSError.nameTooLong) {
      try DNSName(labels: longest.dropLast() + [String(repeating: "y", count: 62)])
    }
    #expect(throws: DNSError.nameTooLong) { try DNSName(labels: longest).prepending("a") }
  }

  @Test func buildsServiceNames() throws {
    let type = name("_switchboard._tcp.local")
    let instance = try type.prepending("Switchboard on vm")
    #expect(instance.labelCount == 4)
    #expect(instance.hasSuffix(type))
    #expect(instance.hasSuffix(name("LOCAL")))
    #expect(!instance.hasSuffix(name("cal")))
    #expect(!instance.hasSuffix(name("on vm._switchboard._tcp.local")))
    #expect(instance.hasSuffix(.root))
    #expect(try name("_switchboard._tcp").appending(name("local")) == type)
  }
}
