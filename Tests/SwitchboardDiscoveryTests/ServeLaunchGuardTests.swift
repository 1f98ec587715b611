import Foundation
import SwitchboardTestSupport
import Testing

/// `switchboard serve` advertises over mDNS unless told `--no-advertise`, and nothing may
/// multicast in the root network namespace where tests, benchmarks and the Autobahn runs
/// start it. Two guards catch a forgotten flag: the test launcher sets
/// `SWITCHBOARD_FORBID_ADVERTISE=1` for every child, which makes such a `serve` refuse to
/// start; and the check below reads every place that launches `serve` (Tests, scripts,
/// benchmarks; not scripts/discovery, whose scripts run it inside namespaces of their own).
@Suite(.onTestThreads) struct ServeLaunchGuardTests {
  static let scanned = ["Tests", "scripts", "benchmarks"]
  /// The namespace scripts, and this file (its samples and its refused launch).
  static let exempt = ["scripts/discovery/", "Tests/SwitchboardDiscoveryTests/ServeLaunchGuardTests.swift"]

  @Test func everyServeLaunchOutsideTheNamespaceScriptsPassesNoAdvertise() throws {
    let root = InteropEnvironment.root
    var launches = 0
    var missing: [String] = []
    for top in Self.scanned {
      let enumerator = try #require(
        FileManager.default.enumerator(atPath: root.appendingPathComponent(top).path))
      for case let relative as String in enumerator {
        let path = "\(top)/\(relative)"
        guard !Self.exempt.contains(where: path.hasPrefix), !path.contains("/Fixtures/"),
          !path.contains("/corpus/"),
          let text = try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        else { continue }
        let found = Self.serveLaunches(in: text, path: path)
        launches += found.count
        missing += found.filter { !$0.passes }.map { "\(path):\($0.line)" }
      }
    }
    #expect(launches >= 15, "found only \(launches) serve launches: is the scanner still finding them?")
    #expect(missing.isEmpty, "pass --no-advertise to serve at \(missing)")
  }

  @Test func theScannerCatchesAForgottenFlag() {
    let swift = """
      let a = try ChildProcess(binary, ["serve", "--host", "127.0.0.1", "--tcp-port", "\\(ports[0])"])
      let b = try ChildProcess(binary, ["serve", "--tcp-port", "\\(p[0])", "--no-advertise"])
      let c = try ChildProcess(binary, ["serve", "--help"])
      """
    #expect(Self.serveLaunches(in: swift, path: "x.swift").map(\.passes) == [false, true, true])
    let shell = """
      "$BIN" serve --host 127.0.0.1 --tcp-port 0 \\
        --http-port "$PORT" --ephemeral &
      "$SB" serve --host 127.0.0.1 \\
        --no-advertise >log &
      switchboard serve --ephemeral
      echo "start \\`switchboard serve\\`."
      """
    #expect(Self.serveLaunches(in: shell, path: "x.sh").map(\.passes) == [false, true, false])
  }

  @Test(.enabled(ifAvailable: InteropEnvironment.binary != nil, "build the switchboard executable first"))
  func aServeLaunchedByTheTestLauncherWithoutTheFlagRefusesToStart() async throws {
    // An interface that does not exist: were the guard broken, the advertiser would have
    // nowhere to send.
    let serve = try ChildProcess(
      InteropEnvironment.binary!,
      [
        "serve", "--host", "127.0.0.1", "--tcp-port", "0", "--udp-port", "0", "--http-port", "0",
        "--ephemeral",
        "--mdns", "builtin", "--mdns-interface", "sb-nonexistent0",
      ])
    defer { serve.stop() }
    #expect(try await serve.waitForExit() == 64)
    #expect(serve.stderr.contains("SWITCHBOARD_FORBID_ADVERTISE=1"), "\(serve.stderr)")
    #expect(serve.stderr.contains("pass --no-advertise"))
    #expect(!serve.stdout.contains("Switchboard is running"))
  }

  /// A `serve` launch found in a file, and whether it is allowed outside a namespace.
  struct Launch: Equatable {
    var line: Int
    var passes: Bool
  }

  /// Launches in `text`: in Swift, Python and JavaScript an array literal holding `"serve"`
  /// (its whole bracketed extent); elsewhere (shell, Markdown) a command line
  /// `switchboard serve …` or `"$VAR" serve …` with its `\` continuation lines. A launch
  /// passes with `--no-advertise`, or with `--help` or `--version` (it exits before
  /// advertising).
  static func serveLaunches(in text: String, path: String) -> [Launch] {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    func passes(_ command: String) -> Bool {
      ["--no-advertise", "--help", "--version"].contains(where: command.contains)
    }
    var launches: [Launch] = []
    if [".swift", ".py", ".js"].contains(where: path.hasSuffix) {
      let chars = Array(text)
      var offset = 0
      var lineStarts: [Int] = []
      for line in lines {
        lineStarts.append(offset)
        offset += line.count + 1
      }
      var searchFrom = text.startIndex
      while let hit = text.range(of: "\"serve\"", range: searchFrom..<text.endIndex) {
        searchFrom = hit.upperBound
        let at = text.distance(from: text.startIndex, to: hit.lowerBound)
        var open = at - 1
        while open >= 0, chars[open].isWhitespace { open -= 1 }
        guard open >= 0, chars[open] == "[" else { continue }
        var depth = 0
        var end = open
        while end < chars.count {
          if chars[end] == "[" { depth += 1 }
          if chars[end] == "]" { depth -= 1 }
          if depth == 0 { break }
          end += 1
        }
        let line = (lineStarts.lastIndex { $0 <= open } ?? 0)
        launches.append(
          Launch(line: line + 1, passes: passes(String(chars[open..<min(end + 1, chars.count)]))))
      }
    } else {
      let launch = /(?:switchboard|\$\{?\w+\}?"?)\s+serve(?:\s|$)/
      var index = 0
      while index < lines.count {
        let start = index
        var command = lines[index]
        while command.hasSuffix("\\"), index + 1 < lines.count {
          index += 1
          command = String(command.dropLast()) + " " + lines[index]
        }
        index += 1
        if command.contains(launch) { launches.append(Launch(line: start + 1, passes: passes(command))) }
      }
    }
    return launches
  }
}
