#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A wall-clock instant, as lines carry it: seconds and nanoseconds since the Unix epoch.
public struct LogTimestamp: Sendable, Hashable, Comparable {
  /// Whole seconds since 1970-01-01T00:00:00Z.
  public var seconds: Int64
  /// Nanoseconds past ``seconds``, 0 ..< 1 000 000 000.
  public var nanoseconds: Int32

  /// An instant; `nanoseconds` is reduced into range.
  public init(seconds: Int64, nanoseconds: Int32 = 0) {
    let carry = Int64(nanoseconds) / 1_000_000_000
    let rest = Int32(Int64(nanoseconds) % 1_000_000_000)
    self.seconds = seconds + carry - (rest < 0 ? 1 : 0)
    self.nanoseconds = rest < 0 ? rest + 1_000_000_000 : rest
  }

  /// Now, from `CLOCK_REALTIME`.
  public static func now() -> LogTimestamp {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return LogTimestamp(seconds: Int64(now.tv_sec), nanoseconds: Int32(now.tv_nsec))
  }

  /// RFC 3339 in UTC with milliseconds: `2025-05-01T09:30:32.123Z`.
  public var rfc3339: String {
    var bytes: [UInt8] = []
    appendRFC3339(to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends ``rfc3339``'s bytes.
  func appendRFC3339(to bytes: inout [UInt8]) {
    let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    let secondOfDay = seconds - days * 86_400
    let (year, month, day) = Self.civil(fromDays: days)
    Self.append(year, width: 4, then: "-", to: &bytes)
    Self.append(month, width: 2, then: "-", to: &bytes)
    Self.append(day, width: 2, then: "T", to: &bytes)
    Self.append(secondOfDay / 3600, width: 2, then: ":", to: &bytes)
    Self.append(secondOfDay / 60 % 60, width: 2, then: ":", to: &bytes)
    Self.append(secondOfDay % 60, width: 2, then: ".", to: &bytes)
    Self.append(Int64(nanoseconds / 1_000_000), width: 3, then: "Z", to: &bytes)
  }

  /// `value`'s decimal digits, zero-padded to `width` (a year past 9999 keeps them all),
  /// then `separator`.
  private static func append(
    _ value: Int64, width: Int, then separator: Unicode.Scalar, to bytes: inout [UInt8]
  ) {
    var divisor: Int64 = 1
    for _ in 1..<width { divisor *= 10 }
    var rest = max(0, value)
    while rest / divisor >= 10 { divisor *= 10 }
    while divisor > 0 {
      bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
      rest %= divisor
      divisor /= 10
    }
    bytes.append(UInt8(ascii: separator))
  }

  /// Whether `a` is earlier than `b`.
  public static func < (a: LogTimestamp, b: LogTimestamp) -> Bool {
    (a.seconds, a.nanoseconds) < (b.seconds, b.nanoseconds)
  }

  /// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's
  /// `civil_from_days`), without the C library's time zone and locale machinery.
  static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }
}
