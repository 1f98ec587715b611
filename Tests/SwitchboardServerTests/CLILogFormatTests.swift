import SwitchboardTestSupport
import Foundation
import SwitchboardIO
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `serve --log-format` and `--log-level` on the real binary: what lands on stderr.
@Suite(.onTestThreads, .enabled(ifAvailable: Executables.switchboard != nil, "build the switchboard executable first"))
struct CLILogFormatTests {
  let binary = Executables.switchboard ?? ""

  private func startServer(_ extra: [String]) async throws -> (ServeProcess, tcp: Int) {
    let server = try await ServeProcess.start(["--ephemeral"] + extra)
    return (server, server.tcp)
  }

  @Test func jsonLinesCarryConnAndPeerForAnAcceptedConnection() async throws {
    let (server, tcp) = try await startServer(["--log-format", "json", "--log-level", "debug"])
    let client = try LineClient(SocketAddress(host: "127.0.0.1", port: tcp))
    try client.sendLine("iam:logged")
    let peer = "127.0.0.1:\(try localPort(client.fd))"
    try await eventually("an accepted line for \(peer) (stderr: \(server.stderr.debugDescription))") {
      server.stderr.contains(#""peer":"\#(peer)""#)
    }
    server.signal(SIGTERM)
    #expect(try await server.waitForExit() == 0)

    let lines = server.stderr.split(separator: "\n").map(String.init)
    var records: [[String: String]] = []
    for line in lines {
      let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
      let record = try #require(object as? [String: String], "not a JSON object of strings: \(line)")
      #expect(record["ts"]?.wholeMatch(of: #/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/#) != nil, "\(line)")
      #expect(record["label"] == "switchboard")
      #expect(record["level"] != nil && record["msg"] != nil)
      records.append(record)
    }
    let accepted = try #require(records.first { $0["msg"] == "accepted" && $0["peer"] == peer })
    #expect(accepted["level"] == "debug")
    #expect(Int(accepted["conn"] ?? "") ?? 0 >= 1)
    #expect(
      records.contains {
        $0["msg"] == "listening" && $0["listener"] == "tcp" && $0["address"] == "127.0.0.1:\(tcp)"
      })
    #expect(records.contains { $0["msg"] == "starting" && $0["version"] != nil && $0["commit"] != nil })
    #expect(records.last?["msg"] == "stopped")
  }

  @Test func textStaysTheDefaultAndDebugLinesStayOffAtInfo() async throws {
    let (server, tcp) = try await startServer([])
    let client = try LineClient(SocketAddress(host: "127.0.0.1", port: tcp))
    try client.sendLine("iam:quiet")
    try client.sendLine("/who")
    _ = try client.expectLine { $0.hasPrefix("* in ") }
    server.signal(SIGTERM)
    #expect(try await server.waitForExit() == 0)
    let lines = server.stderr.split(separator: "\n")
    #expect(
      lines.contains {
        $0.wholeMatch(of: #/\S+Z info switchboard: listening address=127\.0\.0\.1:\d+ listener=tcp/#) != nil
      },
      "\(server.stderr)")
    #expect(!server.stderr.contains("accepted"))
  }

  @Test func aBadLogFormatOrLevelIsAUsageError() async throws {
    let format = try ChildProcess(binary, ["serve", "--log-format", "xml", "--no-advertise", "--ephemeral"])
    #expect(try await format.waitForExit() == 64)
    #expect(format.stderr.contains("--log-format must be text or json, not 'xml'"))
    let level = try ChildProcess(binary, ["serve", "--log-level", "loud", "--no-advertise", "--ephemeral"])
    #expect(try await level.waitForExit() == 64)
    #expect(level.stderr.contains("--log-level must be one of trace, debug, info"))
  }

  private func localPort(_ fd: Int32) throws -> Int {
    var address = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &address) { p in
      p.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
    }
    guard ok else { throw TestFailure("getsockname: errno \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
  }
}
