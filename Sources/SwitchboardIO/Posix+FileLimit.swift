#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension Posix {
  /// `RLIMIT_NOFILE` as `getrlimit` and `setrlimit` take it (an enum on Glibc, `Int32` on Darwin).
  #if canImport(Glibc)
    private static let fileLimitResource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
  #else
    private static let fileLimitResource = RLIMIT_NOFILE
  #endif

  /// The process's descriptor limit, soft and hard (`getrlimit(RLIMIT_NOFILE)`); `nil` when
  /// the call fails. The one place that reads it, for the server's connection budget and the
  /// load generator alike.
  package static func fileLimit() -> (soft: UInt64, hard: UInt64)? {
    var limit = rlimit()
    guard getrlimit(fileLimitResource, &limit) == 0 else { return nil }
    return (UInt64(limit.rlim_cur), UInt64(limit.rlim_max))
  }

  /// Sets the soft descriptor limit, keeping the hard one; whether the kernel took it.
  package static func setSoftFileLimit(_ soft: UInt64) -> Bool {
    guard let current = fileLimit() else { return false }
    var limit = rlimit(rlim_cur: rlim_t(soft), rlim_max: rlim_t(current.hard))
    return setrlimit(fileLimitResource, &limit) == 0
  }
}
