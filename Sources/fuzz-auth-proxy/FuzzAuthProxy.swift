import SwitchboardAuth
import SwitchboardFuzzSupport

// libFuzzer target for the auth proxy's answer decoder (`AuthProxyAnswer.decode`): the bytes
// an app's backend answers with are untrusted. Every input must decode or throw an
// AuthProxyAnswerError (never crash, never hang); what decodes must obey the limits — a name
// of 1-64 characters, at most 64 room patterns, a reason of at most 120 bytes without
// control characters — and a refusal always has a reason to show.
//
// Compiled with -DFUZZ_AUTH_PROXY next to --sanitize=fuzzer (`scripts/fuzz auth-proxy`), it
// is a libFuzzer target; without the flag, a program replaying input files through the same
// check.

func checkFuzzInput(_ bytes: [UInt8]) {
  guard let answer = try? AuthProxyAnswer.decode(bytes) else { return }
  switch answer {
  case .allow(let name, let rooms):
    if let name, !(1...64).contains(name.count) { fatalError("a name outside 1-64 characters: \(name)") }
    if let rooms, rooms.count > 64 { fatalError("more than 64 rooms") }
  case .deny(let reason):
    guard !reason.isEmpty, reason.utf8.count <= AuthProxyAnswer.maxReasonBytes,
      !reason.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
    else { fatalError("a reason that cannot be shown: \(reason.debugDescription)") }
  }
}

#if FUZZ_AUTH_PROXY
  @_cdecl("LLVMFuzzerTestOneInput")
  public func fuzzAuthProxyInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    Fuzz.one(data, size, checkFuzzInput)
  }
#else
  @main enum Replay { static func main() { Fuzz.replay(checkFuzzInput) } }
#endif
