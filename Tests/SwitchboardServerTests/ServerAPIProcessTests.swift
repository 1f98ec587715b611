import Foundation
import SwitchboardIO
import SwitchboardTLS
import SwitchboardTestSupport
import Testing

private let apiPeers =
  Executables.switchboard != nil && Executables.tool("curl") != nil && TestPKI.hasOpenSSL && TLSSupport.isAvailable

/// The real binary's server API (`serve --api-key-file`) called by `curl`, a peer nobody
/// here wrote, on the HTTP and the HTTPS port (docs/API.md).
@Suite(.onTestThreads, .enabled(ifAvailable: apiPeers, "needs the switchboard binary, curl, openssl and TLS"))
struct ServerAPIProcessTests {
  static let key = "process-key-0123456789abcdef"

  private func curl(_ arguments: [String]) async throws -> (Int32, String) {
    let process = try ChildProcess(Executables.tool("curl")!, ["-sS"] + arguments)
    let status = try await process.waitForExit()
    return (status, process.stdout + process.stderr)
  }

  @Test func curlPublishesOverHTTPAndHTTPSToALineMember() async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("api-keys-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try "# the backend's key\n\n\(Self.key)\n".write(to: keyFile, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: keyFile) }
    let server = try await ServeProcess.start(
      ["--ephemeral", "--api-key-file", keyFile.path, "--tls-cert", pki.serverCertificate, "--tls-key", pki.serverKey],
      listeners: [.tcp, .http, .https])
    defer { server.signal(SIGTERM) }
    let member = try LineClient(SocketAddress(host: "127.0.0.1", port: server.tcp))
    try member.join(as: "nc")
    let auth = ["-H", "Authorization: Bearer \(Self.key)"]
    let (plain, plainOut) = try await curl(
      auth + ["--json", #"{"room":"lobby","text":"over http","author":"shop"}"#, "http://127.0.0.1:\(server.http)/api/publish"])
    #expect(plain == 0, "\(plainOut)")
    #expect(plainOut.contains(#""id":1"#), "\(plainOut)")
    try member.expectLine("shop: over http")
    let (secure, secureOut) = try await curl(
      auth + [
        "--cacert", pki.caFile, "--resolve", "localhost:\(server.https):127.0.0.1", "--json",
        #"{"room":"lobby","text":"over https"}"#, "https://localhost:\(server.https)/api/publish",
      ])
    #expect(secure == 0, "\(secureOut)")
    #expect(secureOut.contains(#""id":2"#), "\(secureOut)")
    try member.expectLine("app: over https")
    // A wrong key: 401 with the JSON error, and curl --fail says so with its exit code.
    let (refused, refusedOut) = try await curl(
      ["-H", "X-API-Key: wrong", "-w", "\n%{http_code}", "http://127.0.0.1:\(server.http)/api/info"])
    #expect(refused == 0)
    #expect(refusedOut.hasSuffix("\n401"), "\(refusedOut)")
    #expect(refusedOut.contains(#""code":"unauthorized""#))
  }

  /// `switchboard api` against a live server: its answers and its exit codes (0 answered,
  /// 2 refused, 1 unreachable, 64 usage), over HTTP and HTTPS.
  @Test func theAPICommandCallsALiveServer() async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let server = try await ServeProcess.start(
      ["--ephemeral", "--api-key", Self.key, "--tls-cert", pki.serverCertificate, "--tls-key", pki.serverKey],
      listeners: [.tcp, .http, .https])
    defer { server.signal(SIGTERM) }
    let member = try LineClient(SocketAddress(host: "127.0.0.1", port: server.tcp))
    try member.join(as: "nc")
    func api(_ arguments: [String], key: String = Self.key) async throws -> (Int32, String, String) {
      let process = try ChildProcess(
        Executables.switchboard!, ["api", "--url", "http://127.0.0.1:\(server.http)"] + arguments,
        environment: ["SWITCHBOARD_API_KEY": key])
      let status = try await process.waitForExit()
      return (status, process.stdout, process.stderr)
    }
    let (published, out, _) = try await api(["publish", "--room", "lobby", "--author", "shop", "your", "order", "shipped"])
    #expect(published == 0)
    #expect(out.contains(#""id":1"#), "\(out)")
    try member.expectLine("shop: your order shipped")
    let (presence, members, _) = try await api(["--pretty", "presence", "lobby"])
    #expect(presence == 0)
    #expect(members.contains(#""name" : "nc""#), "\(members)")
    #expect(members.contains(#""transport" : "tcp""#))
    let (history, kept, _) = try await api(["history", "lobby", "--since", "0"])
    #expect(history == 0)
    #expect(kept.contains("your order shipped"))
    let (refused, _, why) = try await api(["rooms"], key: "not-the-key-at-all")
    #expect(refused == 2)
    #expect(why.contains("unauthorized"))
    let (unknown, _, _) = try await api(["presence", "nowhere"])
    #expect(unknown == 2)
    let (usage, _, _) = try await api(["frobnicate"])
    #expect(usage == 64)
    let closed = try RefusingPort()
    let down = try ChildProcess(
      Executables.switchboard!, ["api", "--url", "http://127.0.0.1:\(closed.port)", "info"],
      environment: ["SWITCHBOARD_API_KEY": Self.key])
    #expect(try await down.waitForExit() == 1)
    // HTTPS, verified against the test CA.
    let secure = try ChildProcess(
      Executables.switchboard!,
      ["api", "--url", "https://localhost:\(server.https)", "--ca-file", pki.caFile, "info"],
      environment: ["SWITCHBOARD_API_KEY": Self.key])
    #expect(try await secure.waitForExit() == 0, "\(secure.stderr)")
    #expect(secure.stdout.contains(#""members":1"#), "\(secure.stdout)")
    // Disconnect: the member hears why and is closed.
    let (disconnected, count, _) = try await api(["disconnect", "nc", "--reason", "bye now"])
    #expect(disconnected == 0)
    #expect(count.contains(#""closed":1"#))
    try member.expectLine("* disconnected by the server: bye now")
    try member.expectClosed()
  }

  /// A key rotated in `--api-key-file` takes effect on SIGHUP: the new key works, the old
  /// one is refused, and a file that holds no key keeps the keys as they were.
  @Test func sighupRereadsTheKeyFile() async throws {
    let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent(
      "api-rotate-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try "\(Self.key)\n".write(to: keyFile, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: keyFile) }
    let server = try await ServeProcess.start(["--ephemeral", "--api-key-file", keyFile.path], listeners: [.http])
    defer { server.signal(SIGTERM) }
    func status(_ key: String) async throws -> String {
      let (_, out) = try await curl(["-o", "/dev/null", "-w", "%{http_code}", "-H", "X-API-Key: \(key)", "http://127.0.0.1:\(server.http)/api/info"])
      return out
    }
    #expect(try await status(Self.key) == "200")
    let rotated = "rotated-key-0123456789abcdef"
    try "# rotated\n\(rotated)\n".write(to: keyFile, atomically: true, encoding: .utf8)
    server.signal(SIGHUP)
    try await eventually("the keys were reloaded") { server.stderr.contains("api keys reloaded") }
    #expect(try await status(rotated) == "200")
    #expect(try await status(Self.key) == "401")
    try "# nothing here\n".write(to: keyFile, atomically: true, encoding: .utf8)
    server.signal(SIGHUP)
    try await eventually("the reload failed") { server.stderr.contains("api key reload failed") }
    #expect(try await status(rotated) == "200")
  }
}
