#if os(Linux)
  import Foundation
  import SwitchboardIO
  import SwitchboardTestSupport
  import Testing

  /// `Posix.fileLimit()`, the one reader of the descriptor limit (the server's connection
  /// budget, the load generator's raise), against the kernel's other account of it,
  /// `/proc/self/limits` (Linux's: the suite is Linux's too).
  @Suite(.onTestThreads)
  struct PosixFileLimitTests {
    @Test func theLimitReadIsTheKernels() throws {
      let limits = try String(contentsOfFile: "/proc/self/limits", encoding: .utf8)
      let row = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
      let fields = row.dropFirst("Max open files".count).split(separator: " ")
      let read = try #require(Posix.fileLimit())
      #expect(read.soft <= read.hard)
      #expect(fields.count >= 2 && UInt64(fields[0]) == read.soft && UInt64(fields[1]) == read.hard)
    }
  }
#endif
