import Foundation
import SwitchboardTestSupport
import Testing

/// docs/BAD-INPUT.md cannot cite a test that does not exist: every row of its table ends
/// with the tests that check it in parentheses, `` (`Suite.test`, `test…`, `Suite`) ``, and
/// each must name a `@Test` function (a trailing `…` makes the name a prefix) or a suite in
/// Tests/.
@Suite(.onTestThreads)
struct BadInputTableTests {
  private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent()
    .deletingLastPathComponent()

  /// One cited name: `Suite.test`, `test` or `Suite`, and whether it is a prefix.
  struct Citation: CustomStringConvertible {
    var suite: String?
    var test: String?
    var prefix: Bool
    var description: String { [suite, test].compactMap { $0 }.joined(separator: ".") + (prefix ? "…" : "") }
  }

  /// The table's rows (after the header and separator), each as its cells.
  static func rows(_ markdown: String) -> [[String]] {
    var rows: [[String]] = []
    var inTable = false
    for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      guard trimmed.hasPrefix("|") else {
        inTable = false
        continue
      }
      if trimmed.hasPrefix("|---") || trimmed.hasPrefix("| ---") {
        inTable = true
        continue
      }
      guard inTable else { continue }
      rows.append(
        trimmed.dropFirst().dropLast().components(separatedBy: " | ").map {
          $0.trimmingCharacters(in: .whitespaces)
        })
    }
    return rows
  }

  /// The names in the parentheses that end `cell`, or nil when it does not end with some.
  static func citations(_ cell: String) -> [Citation]? {
    guard cell.hasSuffix("`)"), let open = cell.range(of: "(`", options: .backwards) else { return nil }
    let inside = cell[open.lowerBound...].dropFirst().dropLast()
    var names: [Citation] = []
    for piece in inside.components(separatedBy: ", ") {
      guard piece.hasPrefix("`"), piece.hasSuffix("`"), piece.count > 2 else { return nil }
      var name = String(piece.dropFirst().dropLast())
      let prefix = name.hasSuffix("…")
      if prefix { name.removeLast() }
      let parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
      guard (1...2).contains(parts.count), parts.allSatisfy({ isIdentifier($0) }) else { return nil }
      if parts.count == 2 {
        names.append(Citation(suite: parts[0], test: parts[1], prefix: prefix))
      } else if parts[0].first!.isUppercase {
        names.append(Citation(suite: parts[0], test: nil, prefix: prefix))
      } else {
        names.append(Citation(suite: nil, test: parts[0], prefix: prefix))
      }
    }
    return names
  }

  private static func isIdentifier(_ s: String) -> Bool {
    guard let first = s.unicodeScalars.first, first == "_" || first.properties.isAlphabetic else {
      return false
    }
    return s.unicodeScalars.allSatisfy { $0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0) }
  }

  /// Every Swift file under Tests/ with its text.
  static func testSources() throws -> [(path: String, text: String)] {
    let tests = root.appendingPathComponent("Tests")
    guard let walker = FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil) else {
      throw TestFailure("cannot read \(tests.path)")
    }
    var files: [(String, String)] = []
    for case let url as URL in walker where url.pathExtension == "swift" {
      files.append((url.path, try String(contentsOf: url, encoding: .utf8)))
    }
    return files
  }

  /// Whether `citation` names a `@Test` function (in its suite's file, when it names a
  /// suite) or a `@Suite` struct.
  static func resolves(_ citation: Citation, in sources: [(path: String, text: String)]) -> Bool {
    let files =
      citation.suite.map { suite in
        // The suite's own file, or a `Suite+Topic.swift` extension of it.
        sources.filter { file in
          ["struct", "extension"].contains { file.text.contains("\($0) \(suite) ") || file.text.contains("\($0) \(suite) {") }
        }
      } ?? sources
    guard !files.isEmpty else { return false }
    guard let test = citation.test else { return true }
    for file in files {
      let lines = file.text.components(separatedBy: "\n")
      for (i, line) in lines.enumerated() {
        guard let range = line.range(of: "func \(test)") else { continue }
        let next = line[range.upperBound...].first
        guard citation.prefix || next == "(" else { continue }
        // The @Test attribute is on this line or above it, before the previous declaration.
        for above in lines[..<(i + 1)].reversed() {
          if above.contains("@Test") { return true }
          if above != line && (above.contains("func ") || above.hasPrefix("  }")) { break }
        }
      }
    }
    return false
  }

  @Test func everyRowCitesTestsThatExist() throws {
    let doc = Self.root.appendingPathComponent("docs/BAD-INPUT.md")
    let rows = Self.rows(try String(contentsOf: doc, encoding: .utf8))
    #expect(rows.count >= 40, "the table has \(rows.count) rows")
    let sources = try Self.testSources()
    for row in rows {
      guard let last = row.last, let cited = Self.citations(last), !cited.isEmpty else {
        Issue.record("row cites no test in parentheses: \(row.first ?? "")")
        continue
      }
      for citation in cited where !Self.resolves(citation, in: sources) {
        Issue.record("row '\(row.first ?? "")' cites \(citation), which is no test in Tests/")
      }
    }
  }

  /// The checker itself can fail: a made-up name does not resolve, a real one does.
  @Test func theCheckerRejectsAMissingTestAndAcceptsARealOne() throws {
    let sources = try Self.testSources()
    let real = try #require(Self.citations("x (`BadInputTableTests.everyRowCitesTestsThatExist`)"))
    #expect(real.allSatisfy { Self.resolves($0, in: sources) })
    let prefix = try #require(Self.citations("x (`everyRowCites…`, `BadInputTableTests`)"))
    #expect(prefix.allSatisfy { Self.resolves($0, in: sources) })
    let missing = try #require(Self.citations("x (`BadInputTableTests.noSuchTest`)"))
    #expect(!missing.allSatisfy { Self.resolves($0, in: sources) })
    #expect(Self.citations("an answer without a citation") == nil)
    #expect(Self.citations("x (`not a name`)") == nil)
  }
}
