import SwitchboardTestSupport
import Testing

@testable import SwitchboardDNS

@Suite(.onTestThreads) struct DNSTXTTests {
  @Test func keyKeyEqualsAndKeyValueStayDistinct() throws {
    let record = txt("flag", "note=", "version=1", "eq=a=b")
    #expect(record.entries.map(\.keyString) == ["flag", "note", "version", "eq"])
    #expect(record.entries.map(\.value) == [nil, [], Array("1".utf8), Array("a=b".utf8)])
    #expect(
      record.wire == [4] + Array("flag".utf8) + [5] + Array("note=".utf8) + [9] + Array("version=1".utf8) + [
        6
      ] + Array("eq=a=b".utf8))
    let decoded = try DNSTXT(wire: record.wire[...])
    #expect(decoded == record)
    #expect(decoded.entry(forKey: "flag")?.value == nil)
    #expect(decoded.entry(forKey: "note")?.value == [])
    #expect(decoded.entry(forKey: "missing") == nil)
  }

  @Test func emptyTXTIsOneZeroByte() throws {
    #expect(DNSTXT.empty.wire == [0])
    #expect(try DNSTXT(wire: [][...]) == .empty)
    #expect(try DNSTXT(wire: [0][...]) == .empty)
    // Stray empty strings between entries are skipped, so entries are never empty.
    #expect(try DNSTXT(wire: [0, 1, 0x61, 0][...]) == txt("a"))
  }

  @Test func lookupIgnoresCaseAndTakesTheFirstOccurrence() throws {
    let record = txt("Path=/first", "path=/second", "=orphan")
    #expect(record.entry(forKey: "PATH")?.valueString == "/first")
    #expect(record.entries.count == 3)  // order and duplicates kept
    #expect(record.entry(forKey: "") == nil)  // a string starting with "=" has no key
    #expect(record != txt("path=/second", "Path=/first", "=orphan"))  // order matters for equality
  }

  @Test func buildsEntriesFromKeyAndValue() throws {
    #expect(try DNSTXT.Entry(key: "flag", value: nil as String?).bytes == Array("flag".utf8))
    #expect(try DNSTXT.Entry(key: "note", value: "").bytes == Array("note=".utf8))
    #expect(try DNSTXT.Entry(key: "v", value: [0, 0xFF]).bytes == [0x76, 0x3D, 0, 0xFF])
    #expect(throws: DNSError.invalidTXTEntry) { try DNSTXT.Entry(key: "", value: "x") }
    #expect(throws: DNSError.invalidTXTEntry) { try DNSTXT.Entry(key: "a=b", value: "x") }
    #expect(throws: DNSError.invalidTXTEntry) { try DNSTXT.Entry(key: "ключ", value: "x") }
    #expect(throws: DNSError.invalidTXTEntry) {
      try DNSTXT.Entry(key: "k", value: String(repeating: "x", count: 254))
    }
    #expect(try DNSTXT.Entry(key: "k", value: String(repeating: "x", count: 253)).bytes.count == 255)
    #expect(throws: DNSError.invalidTXTEntry) { try DNSTXT.Entry("") }
    #expect(throws: DNSError.invalidTXTEntry) {
      try DNSTXT.Entry(bytes: [UInt8](repeating: 0x61, count: 256))
    }
  }

  @Test func stringRunningPastTheRecordIsMalformed() {
    #expect(throws: DNSError.malformedRecordData) { try DNSTXT(wire: [5, 0x61, 0x62][...]) }
  }

  @Test func describesLikeAvahiBrowse() {
    #expect(txt("version=1", "flag", "say=\"hi\"").description == "\"version=1\" \"flag\" \"say=\\\"hi\\\"\"")
  }
}
