import Foundation
import SwitchboardTestSupport
import Testing

private let canRun = Executables.switchboard != nil && Executables.tool("bash") != nil

/// The docs and the binary's `--help` agree: docs/CLI.md is the help every command prints
/// now (`scripts/cli-reference` writes it), and every `--flag` README.md and docs/*.md name
/// is one some command's help lists (or another program's, as the script says). Both checks
/// are `scripts/cli-reference --check`, run here with the suite's binary.
@Suite(.onTestThreads, .enabled(ifAvailable: canRun, "needs the switchboard binary and bash"))
struct CLIReferenceTests {
  @Test func theDocsNameOnlyFlagsTheHelpListsAndTheReferenceIsCurrent() throws {
    let check = try runCheck(in: Executables.repositoryRoot)
    #expect(
      try check.waitForExit(timeout: .seconds(60)) == 0,
      "\(check.stderr)\nrun scripts/cli-reference to regenerate docs/CLI.md")
  }

  /// The check fails on what it is for: a flag no command has, named in the README, and a
  /// reference that no longer matches the help.
  @Test func anUnknownFlagInTheReadmeOrAStaleReferenceFailsTheCheck() throws {
    let copy = FileManager.default.temporaryDirectory.appendingPathComponent("sb-cli-reference-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: copy) }
    try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
    for item in ["README.md", "docs", "scripts", "benchmarks"] {
      try FileManager.default.copyItem(
        at: Executables.repositoryRoot.appendingPathComponent(item), to: copy.appendingPathComponent(item))
    }
    let readme = copy.appendingPathComponent("README.md")
    try (String(contentsOf: readme, encoding: .utf8) + "\nRun `switchboard serve --frobnicate`.\n")
      .write(to: readme, atomically: true, encoding: .utf8)
    let reference = copy.appendingPathComponent("docs/CLI.md")
    try String(contentsOf: reference, encoding: .utf8).replacingOccurrences(of: "--tcp-port", with: "--tcp-prt")
      .write(to: reference, atomically: true, encoding: .utf8)

    let check = try runCheck(in: copy)
    #expect(try check.waitForExit(timeout: .seconds(60)) == 1)
    #expect(check.stderr.contains("README.md names --frobnicate, which no command's --help lists"), "\(check.stderr)")
    #expect(check.stderr.contains("docs/CLI.md is stale"), "\(check.stderr)")
  }

  private func runCheck(in root: URL) throws -> ChildProcess {
    try ChildProcess(
      Executables.tool("bash")!, [root.appendingPathComponent("scripts/cli-reference").path, "--check"],
      // Absolute: the check of a copy runs elsewhere than a relative SWITCHBOARD_BIN was given.
      environment: ["SWITCHBOARD_BIN": URL(fileURLWithPath: Executables.switchboard!).path])
  }
}
