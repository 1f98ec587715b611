import Foundation
import SwitchboardIO
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `serve --tcp-port any …`: every listener on a port the kernel chose, reported on the
/// `listening` line and in `--ports-file`, and reachable there; `0` still turns one off; a
/// value that is neither a port nor `any` is a usage error (docs/OPERATIONS.md, "Ports").
@Suite(.onTestThreads, .enabled(ifAvailable: Executables.switchboard != nil, "build the switchboard executable first"))
struct ServePortsTests {
  let binary = Executables.switchboard ?? ""

  private func temporaryFile(_ name: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("switchboard-ports-\(getpid())-\(UInt64.random(in: 0 ... .max))-\(name)").path
  }

  @Test(.enabled(ifAvailable: TestPKI.hasOpenSSL, "needs openssl for the test certificates"))
  func everyListenerOnAnyIsReachableWhereTheLineAndTheFileSay() async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let file = temporaryFile("ports.json")
    try Data("{\"tcp\":1}\n".utf8).write(to: URL(fileURLWithPath: file))  // a stale file from an earlier run
    let server = try await ServeProcess.start(
      ["--ephemeral", "--ports-file", file, "--tls-cert", pki.serverCertificate, "--tls-key", pki.serverKey],
      listeners: Set(ServeListener.allCases))
    defer { server.stop() }
    #expect(Set(server.ports.keys) == Set(ServeListener.allCases))
    #expect(Set(server.ports.values).count == 5, "\(server.ports)")
    #expect(!server.ports.values.contains(0))
    let expectedJSON =
      "{" + ServeListener.allCases.map { "\"\($0.rawValue)\":\(server.port($0))" }.joined(separator: ",") + "}\n"
    #expect(try String(contentsOfFile: file, encoding: .utf8) == expectedJSON)
    #expect(server.stdout.contains("listening tcp=127.0.0.1:\(server.tcp) udp=127.0.0.1:\(server.udp) "))

    let line = try LineClient(SocketAddress(host: "127.0.0.1", port: server.tcp))
    try line.join(as: "ports")
    let peer = try DatagramPeer(SocketAddress(host: "127.0.0.1", port: server.udp))
    try peer.prove()  // the echo, the code offered, and "* ok, you are in": the UDP listener answered
    let http = try LineClient(SocketAddress(host: "127.0.0.1", port: server.http))
    try http.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
    #expect(try http.readLine() == "HTTP/1.1 200 OK\r")
    for port in [server.tls, server.https] {
      let fd = Posix.makeSocket(family: AF_INET, type: Posix.streamType)
      defer { close(fd) }
      #expect(blockingConnect(fd, to: try SocketAddress(host: "127.0.0.1", port: port)) == 0, "port \(port)")
    }

    server.signal(SIGTERM)
    #expect(try await server.waitForExit() == 0)
    #expect(!FileManager.default.fileExists(atPath: file), "the ports file outlived a clean exit")
  }

  @Test func zeroStillTurnsAListenerOff() throws {
    let file = temporaryFile("off.json")
    defer { unlink(file) }
    let server = try ChildProcess(
      binary,
      [
        "serve", "--host", "127.0.0.1", "--no-advertise", "--ephemeral", "--ports-file", file, "--tcp-port", "any",
        "--udp-port", "0", "--http-port", "0",
      ])
    defer { server.stop() }
    let ports = try server.waitForLine(timeout: .seconds(30), ServeProcess.parse)
    let tcp = try #require(ports[.tcp])
    #expect(ports == [.tcp: tcp])
    #expect(try String(contentsOfFile: file, encoding: .utf8) == "{\"tcp\":\(tcp)}\n")
    try server.waitForOutput("Try: nc")
    #expect(!server.stdout.contains("udp://"))
    #expect(!server.stdout.contains("http://"))
  }

  @Test(arguments: [
    ("--tcp-port", "anywhere"), ("--udp-port", "-1"), ("--http-port", "65536"), ("--tls-port", "ANY"),
    ("--https-port", ""),
  ])
  func aBadPortIsAUsageError(flag: String, value: String) async throws {
    let bad = try ChildProcess(binary, ["serve", "--no-advertise", "--ephemeral", flag, value])
    #expect(try await bad.waitForExit() == 64)
    #expect(
      bad.stderr.contains("\(flag) must be a port number in 0...65535 (0 turns it off) or 'any', not '\(value)'"),
      "\(bad.stderr)")
  }

  @Test func anyOnATLSPortNeedsACertificate() async throws {
    let bad = try ChildProcess(binary, ["serve", "--no-advertise", "--ephemeral", "--tls-port", "any"])
    #expect(try await bad.waitForExit() == 64)
    #expect(bad.stderr.contains("--tls-port needs --tls-cert and --tls-key"), "\(bad.stderr)")
  }

  @Test func anUnwritablePortsFileStopsTheServer() async throws {
    let server = try ChildProcess(
      binary,
      ["serve", "--host", "127.0.0.1", "--no-advertise", "--ephemeral", "--tcp-port", "any", "--udp-port", "0",
       "--http-port", "0", "--ports-file", temporaryFile("missing-dir") + "/ports.json"])
    #expect(try await server.waitForExit() == 1)
    #expect(server.stderr.contains("cannot write --ports-file"), "\(server.stderr)")
  }

  @Test func theListeningLineParses() {
    #expect(ServeProcess.parse("listening tcp=127.0.0.1:41234 udp=[::]:41235") == [.tcp: 41234, .udp: 41235])
    #expect(ServeProcess.parse("listening") == [:])
    #expect(ServeProcess.parse("Switchboard is running. Connect with:") == nil)
    #expect(ServeProcess.parse("listening ws=127.0.0.1:1") == nil)
  }
}
