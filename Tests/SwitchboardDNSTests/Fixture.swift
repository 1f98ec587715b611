import Foundation
import Testing

@testable import SwitchboardDNS

/// One packet captured from a real responder by scripts/discovery/capture-fixtures.sh.
struct Fixture: CustomTestStringConvertible, Sendable {
  /// The file name, e.g. `avahi-03-response.bin`.
  let file: String
  /// Who sent it: `avahi` or `zeroconf`.
  let source: String
  /// The mDNS payload.
  let bytes: [UInt8]

  var testDescription: String { file }

  static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
    "Fixtures")

  /// Every fixture listed in Fixtures/manifest.tsv, in capture order.
  static let all: [Fixture] = {
    guard
      let manifest = try? String(
        contentsOf: directory.appendingPathComponent("manifest.tsv"), encoding: .utf8)
    else { return [] }
    return manifest.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
      let fields = line.split(separator: "\t").map(String.init)
      guard fields.count >= 2,
        let data = FileManager.default.contents(atPath: directory.appendingPathComponent(fields[0]).path)
      else { return nil }
      return Fixture(file: fields[0], source: fields[1], bytes: Array(data))
    }
  }()

  /// The decoded message; fixtures must decode.
  var message: DNSMessage { get throws { try DNSMessage(decoding: bytes) } }
}
