import Foundation
import SwitchboardIO
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A loopback port held for a child process that cannot bind a kernel-chosen port and
/// report it (`redis-server`, whose `port 0` means "no TCP"), for as long as this lives.
///
/// Nothing else can take it meanwhile, without any retry:
/// - it lies outside the kernel's ephemeral range (`net.ipv4.ip_local_port_range`), from
///   which the kernel takes every port-0 bind (`serve --tcp-port any`, ``RefusingPort``)
///   and the local port of every outgoing connection;
/// - one counter hands ports out in this process, from an offset of its own, so two tests
///   never get the same one;
/// - an `flock`ed file per port in the temporary directory keeps test processes running at
///   the same time (another suite, another checkout) from sharing one;
/// - a port some other program holds is skipped by one bind check when it is handed out.
///
/// The lock is released on deinit; keep the reservation as long as the child may use the
/// port (a restarted `redis-server` binds the same one again).
public final class ReservedPort: Sendable {
  /// The port.
  public let port: Int
  private let lock: Int32

  private init(port: Int, lock: Int32) {
    self.port = port
    self.lock = lock
  }

  deinit { close(lock) }

  /// `count` different ports, each reserved.
  /// - Throws: ``TestFailure`` when the range has no `count` ports left to hand out.
  public static func reserve(_ count: Int) throws -> [ReservedPort] {
    var ports: [ReservedPort] = []
    // Every port of the range may be looked at once before giving up.
    for _ in 0..<range.count where ports.count < count {
      let next = counter.wrappingAdd(1, ordering: .relaxed).oldValue
      let port = range.lowerBound + next % range.count
      if let reserved = claim(port) { ports.append(reserved) }
    }
    guard ports.count == count else {
      throw TestFailure("only \(ports.count) of \(count) ports in \(range) could be reserved")
    }
    return ports
  }

  /// One reserved port.
  public static func reserve() throws -> ReservedPort { try reserve(1)[0] }

  /// The ports handed out: below the ephemeral range where there is room (from 10000,
  /// above the registered services most hosts run), else above it.
  static let range: ClosedRange<Int> = {
    let ephemeral = ephemeralPorts()
    return ephemeral.lowerBound > 12_000 ? 10_000...(ephemeral.lowerBound - 1) : (ephemeral.upperBound + 1)...65_535
  }()

  /// The next index into ``range``, starting where this process's id puts it, so that
  /// concurrent test processes mostly look at different ports first.
  private static let counter = Atomic<Int>(Int(getpid()) &* 7919 % 1_000_003)

  /// Where the lock files live: one directory per user, as another user's files could not
  /// be opened for writing.
  static let lockDirectory: String? = {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("switchboard-ports-\(getuid())").path
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return FileManager.default.fileExists(atPath: path) ? path : nil
  }()

  /// The file whose `flock` reserves `port`.
  static func lockFile(_ port: Int) -> String? { lockDirectory.map { "\($0)/\(port).lock" } }

  /// Locks `port`'s file and checks that nothing is bound to the port; nil when another
  /// test process has it locked or another program holds it.
  static func claim(_ port: Int) -> ReservedPort? {
    guard let path = lockFile(port) else { return nil }
    let fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
    guard fd >= 0 else { return nil }
    guard flock(fd, LOCK_EX | LOCK_NB) == 0, isFree(port) else {
      close(fd)
      return nil
    }
    return ReservedPort(port: port, lock: fd)
  }

  /// Whether a TCP socket can bind 127.0.0.1:`port` now (no listener, no connection on it).
  private static func isFree(_ port: Int) -> Bool {
    let fd = Posix.makeSocket(family: AF_INET, type: Posix.streamType)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    guard let address = try? SocketAddress(host: "127.0.0.1", port: port) else { return false }
    return address.withSockAddr { sa, len in bind(fd, sa, len) } == 0
  }
}

/// The kernel's ephemeral port range (32768…60999 where it cannot be read).
func ephemeralPorts() -> ClosedRange<Int> {
  #if os(Linux)
    let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
    let bounds = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Int($0) }
  #elseif canImport(Darwin)
    let bounds = ["net.inet.ip.portrange.first", "net.inet.ip.portrange.last"].compactMap { name -> Int? in
      var value: Int32 = 0
      var size = MemoryLayout<Int32>.size
      return sysctlbyname(name, &value, &size, nil, 0) == 0 ? Int(value) : nil
    }
  #else
    let bounds: [Int] = []
  #endif
  guard bounds.count == 2, bounds[0] <= bounds[1] else { return 32_768...60_999 }
  return bounds[0]...bounds[1]
}
