/// Comparisons of secrets whose time taken tells nothing about where they differ.
public enum ConstantTime {
  /// Whether `a` and `b` are equal, in time that depends on their length only: MACs and
  /// keys are compared with it, so that an attacker who measures answers learns nothing
  /// about the expected bytes. Bytes of unequal length are unequal at once (callers that
  /// must hide the length compare digests of equal length, as the server API's keys do).
  public static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for index in a.indices { difference |= a[index] ^ b[index] }
    return difference == 0
  }
}
