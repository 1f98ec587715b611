import Foundation
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `scripts/discovery/interop.sh`: `switchboard advertise` against avahi and python-zeroconf in
/// network namespaces the script creates (and deletes). Runs only as root where `ip netns`
/// works and the binary is built.
@Suite(
  .enabled(if: InteropEnvironment.skipReason == nil, Comment(rawValue: InteropEnvironment.skipReason ?? "")))
struct InteropScriptTests {
  @Test(.timeLimit(.minutes(3)))
  func avahiAndZeroconfSeeAdvertiseAndItsGoodbyeAndRenames() throws {
    let script = Process()
    script.executableURL = InteropEnvironment.root.appendingPathComponent("scripts/discovery/interop.sh")
    script.arguments = [InteropEnvironment.binary!]
    let output = Pipe()
    script.standardOutput = output
    script.standardError = output
    try runSerialized(script)
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    script.waitUntilExit()
    #expect(script.terminationStatus == 0, "\(text)")
    #expect(!text.contains("FAIL "), "\(text)")
    #expect(text.contains("PASS goodbye"), "\(text)")
  }
}

/// Where the script and binary are, and whether this machine can run them.
enum InteropEnvironment {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  static var binary: String? {
    if let env = ProcessInfo.processInfo.environment["SWITCHBOARD_BIN"],
      FileManager.default.isExecutableFile(atPath: env)
    {
      return env
    }
    let candidate = root.appendingPathComponent(".build/debug/switchboard").path
    return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
  }

  /// Why the suite cannot run here, or `nil` when it can.
  static let skipReason: String? = {
    guard getuid() == 0 else { return "needs root (network namespaces)" }
    guard binary != nil else { return "build the switchboard executable first" }
    let probe = Process()
    probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    probe.arguments = ["ip", "netns", "list"]
    probe.standardOutput = FileHandle.nullDevice
    probe.standardError = FileHandle.nullDevice
    guard (try? runSerialized(probe)) != nil else { return "ip is not installed" }
    probe.waitUntilExit()
    return probe.terminationStatus == 0 ? nil : "ip netns does not work here"
  }()
}
