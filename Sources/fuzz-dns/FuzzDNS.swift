import SwitchboardDNS

// libFuzzer target for the DNS decoder: every input must either decode or throw a DNSError
// (never crash, never hang), and what decodes must survive encode → decode unchanged under
// every compression mode.
//
// Compiled with -DFUZZ_DNS next to --sanitize=fuzzer (scripts/discovery/fuzz-dns.sh), it is a
// libFuzzer target: libFuzzer's own `main` drives `LLVMFuzzerTestOneInput`. (A Swift `main`
// calling `LLVMFuzzerRunDriver` does not link in a release build: `-sanitize=fuzzer` always
// brings libFuzzer's `main` too.) Without the flag — a plain `swift build` — it is a small
// program that replays input files through the same check, and links without libFuzzer.
#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

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
  /// libFuzzer's callback for one input.
  @_cdecl("LLVMFuzzerTestOneInput")
  public func fuzzDNSInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    checkDNSInput(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
  }
#else
  /// Replays the files named on the command line through the same check.
  @main
  struct FuzzDNSReplay {
    static func main() {
      if CommandLine.arguments.count < 2 {
        print("usage: fuzz-dns FILE... (replays inputs; scripts/discovery/fuzz-dns.sh builds the fuzzer)")
      }
      var failed = false
      for path in CommandLine.arguments.dropFirst() {
        guard let file = fopen(path, "rb") else {
          print("fuzz-dns: cannot open \(path)")
          failed = true
          continue
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
          let count = fread(&buffer, 1, buffer.count, file)
          if count <= 0 { break }
          bytes += buffer[0..<count]
        }
        fclose(file)
        checkDNSInput(bytes)
      }
      exit(failed ? 1 : 0)
    }
  }
#endif
