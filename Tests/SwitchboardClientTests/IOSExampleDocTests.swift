import Foundation
import SwitchboardTestSupport
import Testing

/// docs/CLIENT.md's iOS example is the file the macOS CI job compiles
/// (`Examples/iOSChat`, for the iOS Simulator and macOS): the guide cannot drift from a
/// screen that builds against the API as it is. SwiftUI exists only on Apple's platforms,
/// so here the check is that the two texts are the same.
@Suite(.onTestThreads)
struct IOSExampleDocTests {
  private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent()
    .deletingLastPathComponent()
  static let examplePath = "Examples/iOSChat/Sources/ChatExample/ChatScreen.swift"

  /// The fenced block right after the paragraph that names `path`, or nil.
  static func block(after path: String, in markdown: String) -> String? {
    guard let named = markdown.range(of: "`\(path)`"),
      let open = markdown.range(of: "```swift\n", range: named.upperBound..<markdown.endIndex),
      let close = markdown.range(of: "\n```\n", range: open.upperBound..<markdown.endIndex)
    else { return nil }
    return String(markdown[open.upperBound..<close.lowerBound]) + "\n"
  }

  @Test func theGuidesExampleIsTheFileCIBuilds() throws {
    let guide = try String(contentsOf: Self.root.appendingPathComponent("docs/CLIENT.md"), encoding: .utf8)
    let file = try String(contentsOf: Self.root.appendingPathComponent(Self.examplePath), encoding: .utf8)
    let shown = try #require(Self.block(after: Self.examplePath, in: guide), "docs/CLIENT.md names no block after \(Self.examplePath)")
    #expect(shown == file, "docs/CLIENT.md's iOS example differs from \(Self.examplePath): copy the file into the guide")
  }

  @Test func theBlockFinderFindsOnlyTheNamedBlock() {
    let markdown = "intro\n```swift\nother\n```\nsee `a/b.swift`:\n\n```swift\nlet x = 1\n```\nmore\n"
    #expect(Self.block(after: "a/b.swift", in: markdown) == "let x = 1\n")
    #expect(Self.block(after: "c.swift", in: markdown) == nil)
  }
}
