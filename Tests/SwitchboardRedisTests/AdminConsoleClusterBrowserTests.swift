import Foundation
import SwitchboardTestSupport
import Testing

/// The first python3 on `PATH` that has `websockets`, and chromium.
private let python = Executables.tools("python3").first { commandSucceeds([$0, "-c", "import websockets"]) }
private let chromium = Executables.tool("chromium")

/// The admin console on three `serve --redis` nodes behind one `redis-server`, in headless
/// Chromium (Tests/peers/browser_admin.py `--cluster`): the page on one node lists the three
/// nodes, and a room's members on every node, each with the node it is on.
@Suite(
  .serialized,
  .enabled(
    ifAvailable: Executables.switchboard != nil && RedisServer.isInstalled && python != nil
      && chromium != nil,
    "needs the switchboard binary, redis-server, chromium and python3 with websockets"),
  .onTestThreads)
struct AdminConsoleClusterBrowserTests {
  static let peersDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent()
    .appendingPathComponent("peers").path

  @Test func chromiumListsEveryNodeAndARoomsMembersAcrossThem() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "browser_admin_cluster-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let passwordFile = directory.appendingPathComponent("admin-password").path
    try Data("cluster-admin-\(UInt64.random(in: 0...UInt64.max))\n".utf8).write(
      to: URL(fileURLWithPath: passwordFile))
    let redis = try ScaleOutRedis(.single)
    defer { withExtendedLifetime(redis) {} }
    var nodes: [ScaleOutNode] = []
    for _ in 0..<3 {
      nodes.append(
        try await ScaleOutNode(redisPorts: redis.ports, arguments: ["--admin-password-file", passwordFile]))
    }
    for node in nodes { _ = try node.waitForReadiness(200) }
    let peer = try ChildProcess(
      python!,
      [
        "\(Self.peersDirectory)/browser_admin.py", "\(nodes[0].httpPort)", "\(nodes[0].tcpPort)",
        "\(nodes[0].udpPort)",
        "--password-file", passwordFile, "--cluster", "\(nodes[1].tcpPort),\(nodes[2].tcpPort)", "--timeout",
        "120",
        "--screenshots", directory.path,
      ])
    let status = try await peer.waitForExit(timeout: .seconds(150))
    #expect(
      status == 0, "browser_admin.py --cluster failed: \(peer.stdout.suffix(800)) \(peer.stderr.suffix(800))")
  }
}
