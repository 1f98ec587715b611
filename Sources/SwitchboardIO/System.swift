#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Facts about the machine.
public enum System {
  /// The number of online processors.
  public static var coreCount: Int {
    #if canImport(Glibc)
      return max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    #else
      return max(1, Int(sysconf(_SC_NPROCESSORS_ONLN)))
    #endif
  }

  /// The machine's host name (`gethostname`), as set (`vm`, `vm.example.org`); `nil` when it
  /// cannot be read or is empty.
  public static func hostName() -> String? {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count) == 0 else { return nil }
    let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return name.isEmpty ? nil : name
  }
}
