import SwitchboardIO
import SwitchboardTLS
import SwitchboardTestSupport
import Testing

/// A build without a TLS library (Apple platforms today; Linux with
/// `SWITCHBOARD_WITHOUT_OPENSSL=1`): every way into TLS throws ``TLSError/unavailable`` with
/// a reason that names the platform and what to do, instead of failing to build or trapping.
@Suite(.onTestThreads, .enabled(ifAvailable: !TLSSupport.isAvailable, "only where TLS is unavailable"))
struct TLSUnavailableTests {
  private func expectUnavailable(_ error: TLSError?, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(error == .unavailable, sourceLocation: sourceLocation)
    #expect(error?.reason.contains(BuildPlatform.name) == true, sourceLocation: sourceLocation)
    #expect(
      error?.description.contains("put a TLS terminator (nginx, Caddy, stunnel) in front") == true,
      sourceLocation: sourceLocation)
  }

  @Test func contextsAndPinsAreRefusedNamingThePlatform() {
    expectUnavailable(#expect(throws: TLSError.self) { try TLSContext(configuration: TLSConfiguration()) })
    let identity = TLSServerConfiguration(certificateChainPEMFile: "cert.pem", privateKeyPEMFile: "key.pem")
    expectUnavailable(#expect(throws: TLSError.self) { try TLSContext(serverConfiguration: identity) })
    expectUnavailable(#expect(throws: TLSError.self) { try TLSContext(serverIdentities: [identity]) })
    expectUnavailable(
      #expect(throws: TLSError.self) { try TLSConfiguration.publicKeySHA256(certificatePEM: "") })
  }

  @Test func aConnectionIsRefusedBeforeAnySocketIsOpened() throws {
    let loop = try EventLoop()
    defer { loop.shutdownGracefully() }
    let address = try SocketAddress(host: "127.0.0.1", port: 9)
    let failure = Locked<TLSError?>(nil)
    // Without a context there is nothing to wait for: the completion runs at once.
    try onLoop(loop) {
      TLSConnection.connect(to: address, configuration: TLSConfiguration(), on: loop) { result in
        if case .failure(let error) = result { failure.withLock { $0 = error } }
      }
    }
    expectUnavailable(failure.value)
  }
}

/// What ``TLSSupport`` says, on every build.
@Suite(.onTestThreads) struct TLSSupportTests {
  @Test func theRefusalNamesThePlatformAndAWayOut() {
    let reason = TLSSupport.unavailableReason(on: "macOS")
    #expect(reason.contains("this build of Switchboard on macOS does not include"))
    #expect(reason.contains("nginx, Caddy, stunnel"))
    #expect(TLSSupport.unavailableReason().contains(BuildPlatform.name))
  }
}
