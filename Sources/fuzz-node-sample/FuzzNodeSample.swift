import SwitchboardFuzzSupport
import SwitchboardServer

// libFuzzer target for the node-sample decoder (`ServerSample(json:)`): under --redis a node
// reads the other nodes' samples from Redis, bytes it did not write. Every input must decode
// or throw a ServerSample.DecodingError (never crash, never hang); what decodes must obey the
// limits — strings of at most 256 bytes, every count and rate finite and not negative, all
// five transports — and encode to bytes that decode to the same sample.
//
// Compiled with -DFUZZ_NODE_SAMPLE next to --sanitize=fuzzer (`scripts/fuzz node-sample`), it
// is a libFuzzer target; without the flag, a program replaying input files through the same
// check.

func checkFuzzInput(_ bytes: [UInt8]) {
  guard let sample = try? ServerSample(json: bytes) else { return }
  guard sample.node.utf8.count <= ServerSample.maxFieldLength,
    sample.version.utf8.count <= ServerSample.maxFieldLength
  else { fatalError("a string over the limit") }
  guard Set(sample.connections.keys) == Set(ServerSample.transports),
    sample.connections.values.allSatisfy({ $0 >= 0 })
  else { fatalError("connections \(sample.connections)") }
  let rates = [sample.messagesPerSecond, sample.deliveriesPerSecond, sample.lagP50Ms, sample.lagP99Ms]
  guard rates.allSatisfy({ $0.isFinite && $0 >= 0 }), sample.members >= 0, sample.rooms >= 0, sample.time >= 0
  else { fatalError("a negative or infinite figure") }
  guard let again = try? ServerSample(json: Array(sample.json.encoded().utf8)), again == sample else {
    fatalError("the round trip changed \(sample)")
  }
}

#if FUZZ_NODE_SAMPLE
  @_cdecl("LLVMFuzzerTestOneInput")
  public func fuzzNodeSampleInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    Fuzz.one(data, size, checkFuzzInput)
  }
#else
  @main enum Replay { static func main() { Fuzz.replay(checkFuzzInput) } }
#endif
