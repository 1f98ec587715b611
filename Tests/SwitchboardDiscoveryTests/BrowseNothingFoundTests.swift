import Foundation
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `switchboard browse --timeout` that finds nothing says so on stderr (stdout stays the
/// empty list a script reads) and exits 1. Run in a network namespace of its own
/// (`unshare --net`, only loopback up), so its multicast queries reach no other host and no
/// service on this machine answers.
@Suite(
  .enabled(ifAvailable: BrowseNamespace.skipReason == nil, Comment(rawValue: BrowseNamespace.skipReason ?? "")),
  .onTestThreads)
struct BrowseNothingFoundTests {
  @Test func aBrowseThatFindsNothingSaysSoAndExitsOne() throws {
    let script = "ip link set lo up && exec \"$0\" browse _switchboard._tcp --timeout 1 --mdns builtin"
    let child = try ChildProcess(
      BrowseNamespace.unshare!, ["--net", "sh", "-c", script, InteropEnvironment.binary!])
    defer { child.stop() }
    let status = try child.waitForExit(timeout: .seconds(20))
    #expect(status == 1, "\(child.stderr)")
    #expect(child.stdout.isEmpty, "\(child.stdout)")
    #expect(child.stderr == "switchboard browse: found no _switchboard._tcp service within 1.0 s\n", "\(child.stderr)")
  }
}

/// Whether this machine can give a process a network namespace of its own.
enum BrowseNamespace {
  static let unshare = Executables.tool("unshare")

  /// Why not, or `nil` when it can.
  static let skipReason: String? = {
    guard getuid() == 0 else { return "needs root (a network namespace)" }
    guard InteropEnvironment.binary != nil else { return "build the switchboard executable first" }
    guard let unshare else { return "needs unshare (util-linux)" }
    return commandSucceeds([unshare, "--net", "true"]) ? nil : "unshare --net does not work here"
  }()
}
