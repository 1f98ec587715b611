import Foundation
import SwitchboardTestSupport
import Testing

/// Every suite of the package carries `.onTestThreads` (docs/TESTING.md): one without it
/// runs on the cooperative pool and, if it blocks, starves the async suites of the run.
@Suite(.onTestThreads) struct EverySuiteOnTestThreadsTests {
  @Test func everySuiteInTestsCarriesTheTrait() throws {
    let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    let files = try #require(FileManager.default.enumerator(atPath: tests.path)).compactMap { $0 as? String }
      .filter { $0.hasSuffix(".swift") }
    var suites = 0
    var missing: [String] = []
    for file in files {
      let lines = try String(contentsOfFile: tests.path + "/" + file, encoding: .utf8)
        .split(separator: "\n", omittingEmptySubsequences: false)
      for (index, line) in lines.enumerated() where line.contains("struct ") && line.contains("Tests") {
        guard let name = Self.suiteName(line) else { continue }
        suites += 1
        // The struct's line and its attributes above it (an `@Suite(` may span lines).
        var attributes = String(line)
        for above in lines[..<index].reversed().prefix(4) {
          let trimmed = above.drop { $0 == " " }
          guard trimmed.hasPrefix("@") || trimmed.hasPrefix(".") || trimmed.hasPrefix(")") else { break }
          attributes += above
        }
        if !attributes.contains(".onTestThreads") { missing.append("\(file):\(index + 1) \(name)") }
      }
    }
    #expect(suites > 40, "found only \(suites) suites under \(tests.path)")
    #expect(missing.isEmpty, "add @Suite(.onTestThreads) to \(missing)")
  }

  /// Conditions run through `.enabled(ifAvailable:)`, off the cooperative pool: a plain
  /// `.enabled(if:)` would evaluate a condition that spawns a program on it.
  @Test func everyConditionIsEvaluatedOffTheCooperativePool() throws {
    let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    let files = try #require(FileManager.default.enumerator(atPath: tests.path)).compactMap { $0 as? String }
      .filter { $0.hasSuffix(".swift") }
    let plain = ".enabled(" + "if:"
    var found: [String] = []
    for file in files {
      let text = try String(contentsOfFile: tests.path + "/" + file, encoding: .utf8)
      for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
      where line.contains(plain) && !line.contains("///") {
        found.append("\(file):\(index + 1)")
      }
    }
    #expect(found.isEmpty, "use .enabled(ifAvailable:) instead of \(plain)) at \(found)")
  }

  /// Exit tests (`#expect(processExitsWith:)`) live only in suites named `…ExitTests`, which
  /// scripts/test runs in a pass of their own: while an exit test waits, Swift Testing's
  /// child-process waiter spins on any other test's child that has exited and is not yet
  /// reaped, and never sees its own child behind one: the run hangs.
  @Test func exitTestsLiveOnlyInExitTestSuites() throws {
    let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    let files = try #require(FileManager.default.enumerator(atPath: tests.path)).compactMap { $0 as? String }
      .filter { $0.hasSuffix(".swift") && !$0.hasSuffix("EverySuiteOnTestThreadsTests.swift") }
    var exitTestFiles = 0
    var misplaced: [String] = []
    for file in files {
      let text = try String(contentsOfFile: tests.path + "/" + file, encoding: .utf8)
      guard text.contains("processExitsWith") else { continue }
      exitTestFiles += 1
      for line in text.split(separator: "\n") {
        if let name = Self.suiteName(line), !name.hasSuffix("ExitTests") { misplaced.append("\(file): \(name)") }
      }
    }
    #expect(exitTestFiles >= 2, "found \(exitTestFiles) files with exit tests")
    #expect(misplaced.isEmpty, "move the exit tests of \(misplaced) to a suite named …ExitTests")
  }

  /// `FooTests` for a line declaring `struct FooTests` (after attributes, if any).
  private static func suiteName(_ line: Substring) -> Substring? {
    guard let range = line.range(of: "struct "), !line.hasPrefix(" "), !line.hasPrefix("/") else { return nil }
    let name = line[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
    return name.hasSuffix("Tests") ? name : nil
  }
}
