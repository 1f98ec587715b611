import SwitchboardIO

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Resource facts about this process and a server process, from `getrusage` and (on Linux) `/proc`.
public enum ProcessStats {
  /// Raises the soft descriptor limit to the hard limit; returns the new soft limit.
  @discardableResult
  public static func raiseFileLimit() -> Int {
    guard let limit = Posix.fileLimit() else { return -1 }
    if limit.soft < limit.hard, !Posix.setSoftFileLimit(limit.hard) {
      // macOS's hard limit is RLIM_INFINITY, which it refuses for descriptors: OPEN_MAX
      // (10,240) is the most a process may ask for there.
      _ = Posix.setSoftFileLimit(min(limit.hard, 10_240))
    }
    return Int(clamping: Posix.fileLimit()?.soft ?? limit.soft)
  }

  /// CPU seconds (user + system) this process has used.
  public static func selfCPUSeconds() -> Double {
    var usage = rusage()
    #if canImport(Glibc)
      getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    #else
      getrusage(RUSAGE_SELF, &usage)
    #endif
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
  }

  /// A process's CPU time, split into the time it ran its own code and the time the kernel
  /// ran on its behalf (system calls: for a server, mostly its sends and receives).
  public struct CPUTimes: Sendable, Equatable {
    /// Seconds in user space (`utime`).
    public var user: Double
    /// Seconds in the kernel (`stime`).
    public var system: Double
    /// `user + system`.
    public var total: Double { user + system }

    /// Times of `user` and `system` seconds.
    public init(user: Double, system: Double) {
      self.user = user
      self.system = system
    }

    /// The time from `earlier` to these times.
    public func since(_ earlier: CPUTimes) -> CPUTimes {
      CPUTimes(user: user - earlier.user, system: system - earlier.system)
    }
  }

  /// CPU times of process `pid` (`utime` and `stime` from `/proc/PID/stat`), or `nil` (always
  /// off Linux).
  public static func cpuTimes(pid: Int32) -> CPUTimes? {
    #if os(Linux)
      return procCPUTimes(pid: pid)
    #else
      return nil  // no /proc (macOS): the report leaves the server's CPU out
    #endif
  }

  /// A `kB` field of `/proc/PID/status` (`VmRSS`, `VmHWM`), in KiB, or `nil` (always off Linux).
  public static func statusKiB(pid: Int32, field: String) -> Int? {
    #if os(Linux)
      return procStatusKiB(pid: pid, field: field)
    #else
      return nil  // no /proc (macOS): the report leaves the server's memory out
    #endif
  }

  /// How many descriptors process `pid` holds (the entries of `/proc/PID/fd`), or `nil`
  /// (always off Linux).
  public static func descriptorCount(pid: Int32) -> Int? {
    #if os(Linux)
      guard let directory = opendir("/proc/\(pid)/fd") else { return nil }
      defer { closedir(directory) }
      var count = 0
      while let entry = readdir(directory) {
        // Every entry but `.` and `..` is a descriptor.
        if entry.pointee.d_name.0 != UInt8(ascii: ".") { count += 1 }
      }
      return count
    #else
      return nil  // no /proc (macOS): the report leaves the server's descriptors out
    #endif
  }

  #if os(Linux)
    private static func procCPUTimes(pid: Int32) -> CPUTimes? {
      guard let stat = ProcessFiles.contents(of: "/proc/\(pid)/stat") else { return nil }
      // The command name may hold spaces; the fields after its closing ')' are fixed.
      guard let close = stat.lastIndex(of: ")") else { return nil }
      let fields = stat[stat.index(after: close)...].split(separator: " ")
      // After ')': state is field 3, utime 14 and stime 15 (1-based over the whole line).
      guard fields.count > 13, let u = Double(fields[11]), let s = Double(fields[12]) else { return nil }
      let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
      return CPUTimes(user: u / ticks, system: s / ticks)
    }

    private static func procStatusKiB(pid: Int32, field: String) -> Int? {
      guard let status = ProcessFiles.contents(of: "/proc/\(pid)/status") else { return nil }
      for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
        let digits = line.dropFirst(field.count + 1).filter { $0.isNumber }
        return Int(digits)
      }
      return nil
    }
  #endif
}
