import SwitchboardTestSupport
import Foundation
import Testing

/// `--version` on the real binary: every command answers it the same way, with the
/// commit the binary was built from.
@Suite(.onTestThreads, .enabled(ifAvailable: Executables.switchboard != nil, "build the switchboard executable first"))
struct CLIVersionTests {
  let binary = Executables.switchboard ?? ""

  static let invocations: [[String]] = [
    ["--version"], ["serve", "--version"], ["chat", "--version"], ["send", "--version"],
    ["bench", "--version"], ["store-bench", "--version"], ["browse", "--version"], ["peer", "--version"],
    ["advertise", "--version"],
    ["serve", "--ephemeral", "--log-format", "json", "--version"],
  ]

  @Test(arguments: invocations)
  func everyCommandPrintsTheVersionAndTheCommitItWasBuiltFrom(arguments: [String]) async throws {
    let run = try ChildProcess(binary, arguments)
    #expect(try await run.waitForExit() == 0)
    #expect(run.stderr.isEmpty)
    let match = try #require(
      try #/^switchboard (\d+\.\d+\.\d+) \(commit ([0-9a-f]{4,40}(?:-dirty)?|unknown)\)\n$/#.wholeMatch(
        in: run.stdout),
      "unexpected output \(run.stdout.debugDescription)")
    if let head = try await Self.gitHead() {
      let commit = String(match.output.2)
      #expect(commit == head || commit == head + "-dirty", "built from \(commit), HEAD is \(head): rebuild")
    }
  }

  @Test func theUsageTextsMentionVersion() async throws {
    for arguments in [["--help"], ["serve", "--help"]] {
      let run = try ChildProcess(binary, arguments)
      #expect(try await run.waitForExit() == 0)
      #expect(run.stdout.contains("--version"))
    }
  }

  /// `git rev-parse --short HEAD` of the checkout this file is in, or `nil` outside one
  /// (a source tarball) or without git.
  static func gitHead() async throws -> String? {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().path
    guard FileManager.default.fileExists(atPath: root + "/.git"), let git = Executables.tool("git") else {
      return nil
    }
    let run = try ChildProcess(git, ["-C", root, "rev-parse", "--short", "HEAD"])
    guard try await run.waitForExit() == 0 else { return nil }
    return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }
}
