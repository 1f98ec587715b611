#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What the kernel says about this process's memory, where it says it cheaply.
public enum ProcessMemory {
  /// Bytes of this process resident in memory now (`/proc/self/statm`'s second field times
  /// the page size), or `nil` where there is no `/proc` (Apple platforms). One small read
  /// of a kernel file: for a gauge sampled once a second, not for a hot path.
  public static var residentBytes: Int? {
    #if os(Linux)
      guard let statm = ProcessFiles.contents(of: "/proc/self/statm") else { return nil }
      let fields = statm.split(separator: " ")
      guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
      return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    #else
      return nil  // no /proc: the console shows the heap only
    #endif
  }
}

/// Reads of the small text files the kernel keeps about processes (`/proc` on Linux).
package enum ProcessFiles {
  /// The whole of the file at `path` as UTF-8 text (invalid bytes replaced), or `nil` when it
  /// cannot be opened. Reads to the end: meant for kernel files of a few hundred bytes.
  package static func contents(of path: String) -> String? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n <= 0 { break }
      bytes.append(contentsOf: chunk[0..<n])
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
