import SwitchboardDNS
import SwitchboardFuzzSupport

// libFuzzer target for the DNS decoder: every input must either decode or throw a DNSError
// (never crash, never hang), and what decodes must survive encode → decode unchanged under
// every compression mode.
//
// Compiled with -DFUZZ_DNS next to --sanitize=fuzzer (scripts/fuzz dns), it is a
// libFuzzer target: libFuzzer's own `main` drives `LLVMFuzzerTestOneInput`. (A Swift `main`
// calling `LLVMFuzzerRunDriver` does not link in a release build: `-sanitize=fuzzer` always
// brings libFuzzer's `main` too.) Without the flag — a plain `swift build` — it is a small
// program that replays input files through the same check, and links without libFuzzer.

/// One input: decode, and check the round trip of whatever decodes. A failed check crashes,
/// which is how libFuzzer learns of it (and saves the input).
func checkDNSInput(_ bytes: [UInt8]) {
  guard let message = try? DNSMessage(decoding: bytes) else { return }
  for compression in [DNSCompression.multicast, .standard, .none] {
    let encoded = message.encode(compression: compression)
    let again: DNSMessage
    do {
      again = try DNSMessage(decoding: encoded)
    } catch {
      fatalError("re-encoded message does not decode (\(compression)): \(error)\n\(message)")
    }
    guard again == message, again.encode(compression: compression) == encoded else {
      fatalError("round trip changed the message (\(compression)):\n\(message)\n--- became\n\(again)")
    }
  }
}

#if FUZZ_DNS
  @_cdecl("LLVMFuzzerTestOneInput")
  public func fuzzDNSInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 { Fuzz.one(data, size, checkDNSInput) }
#else
  @main enum Replay { static func main() { Fuzz.replay(checkDNSInput) } }
#endif
