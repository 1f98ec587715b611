import SwitchboardClient
import SwitchboardIO
import SwitchboardTLS
import SwitchboardTestSupport
import Testing

/// The client where TLS is unavailable (Apple platforms today; Linux with
/// `SWITCHBOARD_WITHOUT_OPENSSL=1`): `wss://` and `tls://` fail with an error that carries
/// ``TLSError/unavailable`` and names the platform — no crash, no plaintext fallback.
@Suite(.onTestThreads, .enabled(ifAvailable: !TLSSupport.isAvailable, "only where TLS is unavailable"))
struct ClientTLSUnavailableTests {
  @Test func aWSSConnectIsTLSFailedNamingThePlatform() async throws {
    // Nothing listens on port 9: a connect attempt would be connectFailed, so tlsFailed also
    // shows that the refusal comes before any socket.
    let error = await #expect(throws: WebSocketClientError.tlsFailed) {
      _ = try await WebSocketClient.connect(to: "wss://127.0.0.1:9/")
    }
    #expect(error?.tlsError == .unavailable)
    #expect(
      error?.message.contains("this build of Switchboard on \(BuildPlatform.name) does not include") == true,
      "\(String(describing: error))")
  }

  @Test(
    .enabled(ifAvailable: Executables.switchboard != nil, "switchboard binary not built"),
    arguments: ["wss://127.0.0.1:9/", "tls://127.0.0.1:9"])
  func sendOverTLSExitsNonZeroNamingThePlatform(url: String) async throws {
    let child = try ChildProcess(Executables.switchboard!, ["send", url, "hello"])
    defer { child.stop() }
    #expect(try await child.waitForExit() == 1)
    #expect(child.stderr.contains("TLS unavailable"), "\(child.stderr)")
    #expect(child.stderr.contains(BuildPlatform.name), "\(child.stderr)")
  }
}
