import SwitchboardFuzzSupport
import SwitchboardRESP

// libFuzzer target for the RESP decoder: every input must decode to values or end in a
// RESPError (never crash, never hang, never allocate past the limits); whatever decodes must
// re-encode to bytes that decode to the same encoding again; and feeding the same input in
// two pieces (split where the input's first byte says) must give the same values as feeding
// it whole.
//
// Compiled with -DFUZZ_RESP next to --sanitize=fuzzer (scripts/fuzz resp), it is a
// libFuzzer target whose `main` is libFuzzer's. Without the flag — a plain `swift build` — it
// is a small program that replays input files through the same check.
/// Small limits, so that the fuzzer reaches every limit with short inputs.
let fuzzLimits = RESPLimits(
  maxBulkLength: 4096, maxAggregateCount: 512, maxDepth: 8, maxBufferedBytes: 64 << 10, maxLineLength: 256)

func decodeAll(_ chunks: [[UInt8]]) -> (values: [RESPValue], error: RESPError?) {
  RESPDecoder.decodeAll(chunks, limits: fuzzLimits)
}

/// One input. A failed check crashes, which is how libFuzzer learns of it (and saves the input).
func checkRESPInput(_ bytes: [UInt8]) {
  let whole = decodeAll([bytes])
  if bytes.count > 1 {
    let cut = Int(bytes[0]) % bytes.count
    let split = decodeAll([Array(bytes[..<cut]), Array(bytes[cut...])])
    let same = split.values.map(\.encoded) == whole.values.map(\.encoded) && split.error == whole.error
    guard same else {
      fatalError("split at \(cut) decoded differently: \(split) vs \(whole)")
    }
  }
  for value in whole.values {
    let encoded = value.encoded
    var decoder = RESPDecoder()
    let again: RESPValue?
    do {
      try decoder.append(encoded)
      again = try decoder.next()
    } catch {
      fatalError("re-encoded value does not decode: \(error)\n\(value)")
    }
    guard let again, again.encoded == encoded else {
      fatalError("round trip changed the value:\n\(value)\n--- became\n\(String(describing: again))")
    }
  }
}

#if FUZZ_RESP
  @_cdecl("LLVMFuzzerTestOneInput")
  public func fuzzRESPInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 { Fuzz.one(data, size, checkRESPInput) }
#else
  @main enum Replay { static func main() { Fuzz.replay(checkRESPInput) } }
#endif
