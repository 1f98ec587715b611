import Foundation
import SwitchboardRESP
import SwitchboardTestSupport
import Testing

/// Random and mutated input never crashes the decoder: it decodes, or ends in a RESPError;
/// what decodes survives encode → decode; a split anywhere gives the same values. The
/// libFuzzer target (`fuzz-resp`) checks the same for much longer; this is its deterministic,
/// always-run cousin (fixed seeds).
@Suite(.onTestThreads) struct RESPFuzzTests {
  static let limits = RESPLimits(
    maxBulkLength: 4096, maxAggregateCount: 512, maxDepth: 8, maxBufferedBytes: 64 << 10, maxLineLength: 256)

  /// Checks one input; returns how many values it decoded.
  @discardableResult
  static func check(_ input: [UInt8], cut: Int) -> Int {
    let whole = decodeAll([input], limits: limits)
    let at = input.isEmpty ? 0 : cut % input.count
    let split = decodeAll([Array(input[..<at]), Array(input[at...])], limits: limits)
    #expect(split.values.map(\.encoded) == whole.values.map(\.encoded) && split.error == whole.error)
    for value in whole.values {
      let encoded = value.encoded
      let again = decodeAll([encoded])
      #expect(again.values.map(\.encoded) == [encoded], "round trip of \(value)")
    }
    return whole.values.count
  }

  static var seeds: [[UInt8]] {
    RESPDecoderTests.vectors.map { bytes($0.0) } + RESPMalformedTests.malformed.map { bytes($0.0) }
  }

  static func mutate(_ input: [UInt8], _ random: inout SeededGenerator) -> [UInt8] {
    var bytes = input
    let interesting: [UInt8] = Array("\r\n*$%~>|:+-_,#(!=?0123456789".utf8)
    for _ in 0..<Int.random(in: 1...6, using: &random) {
      guard !bytes.isEmpty else { break }
      let index = Int.random(in: 0..<bytes.count, using: &random)
      switch Int.random(in: 0...5, using: &random) {
      case 0: bytes[index] ^= 1 << UInt8.random(in: 0...7, using: &random)
      case 1: bytes[index] = interesting.randomElement(using: &random)!
      case 2: bytes.remove(at: index)
      case 3: bytes.insert(interesting.randomElement(using: &random)!, at: index)
      case 4: bytes += Self.seeds.randomElement(using: &random)!  // frames after frames
      default: bytes.removeLast(Int.random(in: 0...bytes.count - index, using: &random))
      }
    }
    return bytes
  }

  @Test func randomBytesNeverCrash() {
    var random = SeededGenerator(seed: 7_000)
    let alphabet: [UInt8] = Array("\r\n*$%~>|:+-_,#(!=?0123456789abc".utf8)
    var decoded = 0
    for _ in 0..<20_000 {
      let count = Int.random(in: 0...60, using: &random)
      let input = (0..<count).map { _ in alphabet.randomElement(using: &random)! }
      decoded += Self.check(input, cut: Int.random(in: 0...64, using: &random))
    }
    #expect(decoded > 10)
  }

  @Test func mutatedVectorsNeverCrash() {
    var random = SeededGenerator(seed: 6_379)
    let seeds = Self.seeds
    var decoded = 0
    for iteration in 0..<20_000 {
      let input = Self.mutate(seeds[iteration % seeds.count], &random)
      decoded += Self.check(input, cut: Int.random(in: 0...64, using: &random))
    }
    #expect(decoded > 1_500)
  }

  @Test func generatedValuesRoundTripInRandomSplits() {
    var random = SeededGenerator(seed: 3_000)
    for _ in 0..<2_000 {
      let values = (0..<Int.random(in: 1...5, using: &random)).map { _ in
        RandomRESPValue.make(depth: 4, &random)
      }
      let wire = values.flatMap(\.encoded)
      let whole = decodeAll([wire])
      #expect(whole.values == values && whole.error == nil, "\(values)")
      let split = decodeAll(wire.randomSplits(maxChunk: 9, using: &random))
      #expect(split.values == values && split.error == nil)
      // And mutated, the same bytes never crash.
      Self.check(Self.mutate(wire, &random), cut: Int.random(in: 0...64, using: &random))
    }
  }

  @Test func committedFuzzCorpusReplaysCleanly() throws {
    let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Fuzz/resp/corpus")
    let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
    #expect(files.count >= 20)
    for file in files {
      let data = try Data(contentsOf: directory.appendingPathComponent(file))
      Self.check(Array(data), cut: Int(data.first ?? 0))
    }
  }
}
