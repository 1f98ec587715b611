import Foundation
import SwitchboardIO
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `switchboard peer`'s command line: help, usage errors and a UDP port in use — everything
/// that ends before any mDNS is sent (the peers themselves run in network namespaces:
/// scripts/discovery/interop-peer.sh, `PeerInteropScriptTests`).
@Suite(.onTestThreads, .enabled(ifAvailable: Executables.switchboard != nil, "build the switchboard executable first"))
struct PeerCommandTests {
  let binary = Executables.switchboard ?? ""

  @Test func helpDocumentsTheOutputLinesAndExitCodes() async throws {
    let help = try ChildProcess(binary, ["peer", "--help"])
    #expect(try await help.waitForExit() == 0)
    for text in [
      "+ NAME (ADDRESS:PORT)", "- NAME", "NAME: text", "_networkplayground._udp", "--to PEER", "64 bad usage",
    ] {
      #expect(help.stdout.contains(text), "\(text)")
    }
  }

  @Test(arguments: [
    (["peer"], "--name NAME is required"),
    (["peer", "--name", ""], "--name NAME is required"),
    (["peer", "--name", String(repeating: "x", count: 64)], "--name NAME is required"),
    (["peer", "--name", "a", "--type", "_chat._tcp"], "must be a UDP service type"),
    (["peer", "--name", "a", "--type", "chat"], "is not _name._tcp or _name._udp"),
    (["peer", "--name", "a", "--port", "70000"], "--port must be a number in 0...65535"),
    (["peer", "--name", "a", "--mdns", "bonjour"], "--mdns must be auto, builtin or system"),
    (["peer", "--name", "a", "--wait", "-1"], "--wait must be a non-negative number"),
    (["peer", "--name", "a", "--to", ""], "--to needs a peer name"),
    (["peer", "--name", "a", "extra"], "unexpected argument 'extra'"),
    (["peer", "--name", "a", "--frobnicate"], "unknown option --frobnicate"),
  ])
  func badUsageExits64(arguments: [String], message: String) async throws {
    let peer = try ChildProcess(binary, arguments)
    #expect(try await peer.waitForExit() == 64)
    #expect(peer.stderr.contains(message), "\(peer.stderr)")
  }

  @Test func underTheTestLauncherAPeerRefusesToStart() async throws {
    // The launcher sets SWITCHBOARD_FORBID_ADVERTISE=1; a peer always advertises. An
    // interface that does not exist: were the guard broken, it would have nowhere to send.
    let peer = try ChildProcess(
      binary, ["peer", "--name", "a", "--mdns", "builtin", "--interface", "sb-nonexistent0"])
    #expect(try await peer.waitForExit() == 64)
    #expect(peer.stderr.contains("SWITCHBOARD_FORBID_ADVERTISE=1"), "\(peer.stderr)")
  }

  @Test func aUDPPortInUseIsAClearStartupError() async throws {
    // Hold a UDP port on every address; the peer must fail to bind it and exit 1. The guard
    // is lifted for this one child; `--mdns system` keeps even a peer that wrongly got past
    // the bind from sending mDNS here.
    let fd = Posix.makeSocket(family: AF_INET, type: Posix.datagramType)
    #expect(fd >= 0)
    defer { close(fd) }
    let any = try SocketAddress(host: "0.0.0.0", port: 0)
    #expect(any.withSockAddr { bind(fd, $0, $1) } == 0)
    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    let port = withUnsafeMutablePointer(to: &storage) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
        getsockname(fd, sa, &length) == 0 ? SocketAddress(sa)?.port : nil
      }
    }
    let held = try #require(port)
    let peer = try ChildProcess(
      binary, ["peer", "--name", "a", "--port", "\(held)", "--mdns", "system"],
      environment: ["SWITCHBOARD_FORBID_ADVERTISE": "0"])
    #expect(try await peer.waitForExit() == 1)
    #expect(peer.stderr.contains("cannot bind UDP port \(held)"), "\(peer.stderr)")
  }
}
