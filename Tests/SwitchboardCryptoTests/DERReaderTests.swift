import SwitchboardCrypto
import SwitchboardTestSupport
import Testing

/// DER's length rules, one by one.
@Suite(.onTestThreads) struct DERReaderTests {
  @Test func shortAndLongLengthsRead() throws {
    var reader = DERReader([0x04, 0x01, 0xAA, 0x04, 0x81, 0x80] + [UInt8](repeating: 7, count: 128))
    #expect(try reader.read(DERReader.Tag.octetString).contents == [0xAA])
    #expect(try reader.read(DERReader.Tag.octetString).contents.count == 128)
    #expect(reader.isAtEnd)
  }

  @Test(
    arguments: [
      [0x04, 0x80],  // indefinite length (BER only)
      [0x04, 0x81, 0x05, 1, 2, 3, 4, 5],  // long form under 128
      [0x04, 0x82, 0x00, 0x80] + [UInt8](repeating: 0, count: 128),  // leading zero length byte
      [0x04, 0x85, 1, 0, 0, 0, 0],  // a length of 5 bytes
      [0x04, 0x02, 0x01],  // contents cut short
      [0x04],  // no length
      [0x1F, 0x01, 0x00],  // multi-byte tag
      [0x02, 0x02, 0x00, 0x01],  // INTEGER not minimal (read as unsigned below)
    ] as [[UInt8]])
  func malformedElementsAreRefused(_ bytes: [UInt8]) {
    var reader = DERReader(bytes)
    #expect(throws: DERError.self) {
      if bytes.first == DERReader.Tag.integer {
        _ = try reader.readUnsignedInteger()
      } else {
        _ = try reader.read()
      }
    }
  }

  @Test func trailingBytesAreRefused() throws {
    var reader = DERReader([0x05, 0x00, 0x05])
    _ = try reader.read(DERReader.Tag.null)
    #expect(throws: DERError.self) { try reader.expectEnd() }
  }
}
