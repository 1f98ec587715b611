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
}
