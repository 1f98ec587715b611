import Foundation
import Testing

/// What Linux's `/proc` says about a process (a server child under test): resident memory, open
/// descriptors, CPU time. Linux only: elsewhere ``available`` is false and the reads throw, and
/// the suites that measure with them carry `.enabled(ifAvailable: ProcFS.available, ProcFS.needed)`.
public enum ProcFS {
  /// Whether `/proc` can be read here (Linux).
  public static var available: Bool {
    #if os(Linux)
      FileManager.default.fileExists(atPath: "/proc/self/status")
    #else
      false
    #endif
  }

  /// The reason a suite that needs `/proc` is skipped elsewhere.
  public static let needed: Comment = "measures a process through /proc (Linux only)"

  /// A `kB` row of `/proc/PID/status`, in bytes: `VmRSS` (every resident page) or `RssAnon`
  /// (heap and stacks, without the binary's pages, which the kernel may drop and fault in again).
  /// - Throws: ``TestFailure`` when the row cannot be read (always, off Linux).
  public static func statusBytes(_ pid: pid_t, _ row: String = "VmRSS") throws -> Int {
    let status = try read("status", of: pid)
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(row + ":") }),
      let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
    else { throw TestFailure("no \(row) in the status of \(pid)") }
    return kib * 1024
  }

  /// The number of descriptors `pid` holds open.
  /// - Throws: ``TestFailure`` when they cannot be listed (always, off Linux).
  public static func openDescriptors(_ pid: pid_t) throws -> Int {
    #if os(Linux)
      do {
        return try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
      } catch {
        throw TestFailure("descriptors of \(pid): \(error)")
      }
    #else
      throw TestFailure("no /proc on this platform")
    #endif
  }

  /// User plus system CPU time of `pid`, in clock ticks (`utime` + `stime` of `/proc/PID/stat`).
  /// - Throws: ``TestFailure`` when it cannot be read (always, off Linux).
  public static func cpuTicks(_ pid: pid_t) throws -> Int {
    let stat = try read("stat", of: pid)
    // The command name may hold spaces; the fields after its closing ')' are fixed.
    guard let close = stat.lastIndex(of: ")") else { throw TestFailure("no stat for \(pid)") }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
  }

  private static func read(_ file: String, of pid: pid_t) throws -> String {
    #if os(Linux)
      do {
        return try String(contentsOfFile: "/proc/\(pid)/\(file)", encoding: .utf8)
      } catch {
        throw TestFailure("/proc/\(pid)/\(file): \(error)")
      }
    #else
      throw TestFailure("no /proc on this platform")
    #endif
  }
}
