import SwitchboardTestSupport
import Foundation
import Testing

@testable import SwitchboardDNS

/// Random and mutated packets never crash the decoder: each either decodes (and then survives
/// encode → decode unchanged) or throws a DNSError. The libFuzzer target (`fuzz-dns`) checks
/// the same property for much longer; this is its deterministic, always-run cousin.
@Suite(.onTestThreads) struct DNSFuzzTests {
  /// Decodes; when that works, checks the round trip. Returns whether it decoded.
  @discardableResult
  static func check(_ bytes: [UInt8]) -> Bool {
    let message: DNSMessage
    do {
      message = try DNSMessage(decoding: bytes)
    } catch {
      return false  // typed throws: this is a DNSError, nothing else can arrive here
    }
    for compression in [DNSCompression.multicast, .none] {
      let again = try? DNSMessage(decoding: message.encode(compression: compression))
      #expect(again == message, "round trip changed \(bytes)")
    }
    return true
  }

  static func mutate(_ input: [UInt8], _ random: inout TestRandom) -> [UInt8] {
    var bytes = input
    for _ in 0..<Int.random(in: 1...6, using: &random) {
      guard !bytes.isEmpty else { break }
      let index = Int.random(in: 0..<bytes.count, using: &random)
      switch Int.random(in: 0...6, using: &random) {
      case 0: bytes[index] ^= 1 << UInt8.random(in: 0...7, using: &random)
      case 1: bytes[index] = UInt8.random(in: 0...255, using: &random)
      case 2: bytes.remove(at: index)
      case 3: bytes.insert(UInt8.random(in: 0...255, using: &random), at: index)
      case 4: bytes[index] = [0xC0, 0x3F, 0x40, 0x80, 0x00, 0xFF][Int.random(in: 0...5, using: &random)]
      case 5 where index + 1 < bytes.count:  // a pointer to somewhere
        bytes[index] = 0xC0
        bytes[index + 1] = UInt8.random(in: 0...UInt8(min(255, bytes.count)), using: &random)
      default: bytes.removeLast(Int.random(in: 0...bytes.count - index, using: &random))
      }
    }
    return bytes
  }

  @Test func randomBytesNeverCrash() {
    var random = TestRandom(seed: 1035)
    var decoded = 0
    for _ in 0..<20_000 {
      let count = Int.random(in: 0...80, using: &random)
      var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
      // Small counts make it past the header checks more often.
      if bytes.count >= 12 {
        for index in stride(from: 4, to: 12, by: 2) {
          bytes[index] = 0
          bytes[index + 1] &= 3
        }
      }
      if Self.check(bytes) { decoded += 1 }
    }
    #expect(decoded > 30)
  }

  @Test func mutatedFixturesAndMessagesNeverCrash() {
    var random = TestRandom(seed: 6763)
    var seeds = Fixture.all.map(\.bytes)
    for _ in 0..<50 { seeds.append(GeneratedMessages.message(&random).encode()) }
    var decoded = 0
    for iteration in 0..<20_000 {
      let bytes = Self.mutate(seeds[iteration % seeds.count], &random)
      if Self.check(bytes) { decoded += 1 }
    }
    #expect(decoded > 1_000)
  }

  @Test func committedFuzzCorpusReplaysCleanly() throws {
    let directory = Fixture.directory.deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Fuzz/dns/corpus")
    let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
    #expect(files.count > 50)
    for file in files {
      let data = try #require(
        FileManager.default.contents(atPath: directory.appendingPathComponent(file).path))
      Self.check(Array(data))
    }
  }
}
