import Foundation

/// Tests/peers/backend.py: an app's backend written with aiohttp, started on 127.0.0.1 with
/// a kernel-chosen port (its endpoints and stdin commands are in the script's docstring).
public final class BackendPeer {
  public let process: ChildProcess
  /// The aiohttp server's port.
  public let port: Int
  /// A listener that answers HTTP/1.0 without a length and closes.
  public let closePort: Int
  /// A listener that answers bytes that are not HTTP.
  public let garbagePort: Int

  /// Whether python3 can import aiohttp (scripts/install-test-peers.sh installs it).
  public static let isAvailable: Bool = commandSucceeds(["python3", "-c", "import aiohttp"])

  public init(secret: String = "", window: Int = 300) async throws {
    let script = Executables.repositoryRoot.appendingPathComponent("Tests/peers/backend.py").path
    process = try ChildProcess(command: [
      "python3", "-u", script, "--secret", secret, "--window", "\(window)",
    ])
    // Python with aiohttp can take well over 15 s to start on a loaded 2-core CI machine
    // (a run saw nothing printed in 15 s); its first line marks the start.
    port = try await process.waitForLine(timeout: .seconds(60)) {
      $0.hasPrefix("port ") ? Int($0.dropFirst(5)) : nil
    }
    closePort = try await process.waitForLine { $0.hasPrefix("close-port ") ? Int($0.dropFirst(11)) : nil }
    garbagePort = try await process.waitForLine {
      $0.hasPrefix("garbage-port ") ? Int($0.dropFirst(13)) : nil
    }
  }

  deinit { process.stop() }

  /// `http://127.0.0.1:PORT/path`.
  public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

  /// Switches how /hooks answers (`ok`, `fail`, `hang`) and waits until the backend says so.
  public func mode(_ mode: String) async throws {
    let before = lines.filter { $0 == "mode \(mode)" }.count
    process.write("mode \(mode)\n")
    try await eventually("the backend in mode \(mode)") {
      self.lines.filter { $0 == "mode \(mode)" }.count > before
    }
  }

  /// Every whole line the backend printed so far.
  public var lines: [String] {
    let text = process.stdout
    let whole = text.hasSuffix("\n") ? text : String(text[..<(text.lastIndex(of: "\n") ?? text.startIndex)])
    return whole.split(separator: "\n").map(String.init)
  }

  /// The `event …` and `message …` lines, in the order received.
  public var events: [String] { lines.filter { $0.hasPrefix("event ") || $0.hasPrefix("message ") } }
}
