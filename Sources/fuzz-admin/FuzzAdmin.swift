import SwitchboardFuzzSupport
import SwitchboardHTTP

// libFuzzer target for the admin console's two decoders of untrusted text: the `Cookie`
// header (`HTTPCookies`) and a form body (`HTTPForm`, the login form). The first byte picks
// the form's limits; the rest is both a cookie header and a form body. Properties: the
// limits hold (no more pairs or fields than allowed; an over-long header reads as no
// cookies, an over-long or over-full form is refused); cookie names are non-empty, trimmed
// and hold no `;` or `=`, values no `;`; what a form decodes, encoded again with every byte
// escaped, decodes to the same fields.
//
// Compiled with -DFUZZ_ADMIN next to --sanitize=fuzzer (`scripts/fuzz admin`), it is a
// libFuzzer target; without the flag, a program replaying input files through the same check.

func checkFuzzInput(_ bytes: [UInt8]) {
  guard let first = bytes.first else { return }
  let rest = Array(bytes.dropFirst())
  let text = String(decoding: rest, as: UTF8.self)

  let cookies = HTTPCookies(header: text)
  Fuzz.require(cookies.pairs.count <= HTTPCookies.maxCookies, "more cookies than the limit")
  if text.utf8.count > HTTPCookies.maxBytes {
    Fuzz.require(cookies.pairs.isEmpty, "an over-long header was read")
  }
  for pair in cookies.pairs {
    Fuzz.require(!pair.name.isEmpty, "an empty cookie name")
    Fuzz.require(!pair.name.contains(";") && !pair.name.contains("="), "a separator in a name: \(pair.name)")
    Fuzz.require(!pair.value.contains(";"), "a separator in a value: \(pair.value)")
    Fuzz.require(pair.name.trimmingCharacters(in: [" ", "\t"]) == pair.name, "an untrimmed name")
  }

  let limits = HTTPForm.Limits(maxBytes: Int(first) * 64, maxFields: Int(first % 16))
  do throws(HTTPForm.Refusal) {
    let form = try HTTPForm(rest, limits: limits)
    Fuzz.require(rest.count <= limits.maxBytes, "an over-long form was read")
    Fuzz.require(form.fields.count <= limits.maxFields, "more fields than the limit")
    let encoded = form.fields.map { escape($0.key) + "=" + escape($0.value) }.joined(separator: "&")
    let again = try? HTTPForm(Array(encoded.utf8), limits: .unbounded)
    Fuzz.require(again?.fields == form.fields, "a form encoded again reads differently")
  } catch {
    Fuzz.require(rest.count > limits.maxBytes || error == .tooManyFields, "a form refused within its limits")
  }
}

/// Every byte as `%XX`.
private func escape(_ text: String) -> String {
  let digits = Array("0123456789ABCDEF")
  return String(text.utf8.flatMap { ["%", digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
}

extension String {
  fileprivate func trimmingCharacters(in set: Set<Character>) -> Substring {
    var s = Substring(self)
    while let c = s.first, set.contains(c) { s = s.dropFirst() }
    while let c = s.last, set.contains(c) { s = s.dropLast() }
    return s
  }
}

#if FUZZ_ADMIN
  @_cdecl("LLVMFuzzerTestOneInput")
  public func fuzzAdminInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    Fuzz.one(data, size, checkFuzzInput)
  }
#else
  @main enum Replay { static func main() { Fuzz.replay(checkFuzzInput) } }
#endif
