import Foundation
import SwitchboardIO
import SwitchboardServer
import SwitchboardTLS
import SwitchboardTestSupport
import Synchronization
import Testing

@testable import SwitchboardClient

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The line dialect's reader that every transport shares (the POSIX line channel and
/// datagrams here, Network.framework's connections on Apple platforms).
@Suite(.onTestThreads) struct LineReaderTests {
  @Test func linesEndAtLFOrCRLFWhereverTheChunksAreCut() {
    let text = Array("one\r\ntwo\nthree\r\n".utf8)
    var generator = SeededGenerator(seed: 29)
    for _ in 0..<20 {
      var reader = LineReader()
      var lines: [String] = []
      for chunk in text.randomSplits(maxChunk: 4, using: &generator) {
        reader.read(contentsOf: chunk) { lines.append($0) }
      }
      #expect(lines == ["one", "two", "three"])
      #expect(reader.finish() == nil)
    }
  }

  @Test func invalidUTF8IsReplacedAndTheUnterminatedRestIsALastLine() {
    var reader = LineReader()
    var lines: [String] = []
    reader.read(contentsOf: [0x61, 0xFF, 0x62, 0x0A, 0x63]) { lines.append($0) }
    #expect(lines == ["a\u{FFFD}b"])
    #expect(reader.finish() == "c")
  }

  @Test func aLineOverTheLimitIsDroppedWholeAndTheNextKept() {
    var reader = LineReader(maxLineLength: 8)
    var lines: [String] = []
    reader.read(contentsOf: Array("short\n".utf8)) { lines.append($0) }
    reader.read(contentsOf: Array("much too long for it".utf8)) { lines.append($0) }
    reader.read(contentsOf: Array(" still\nnext\n".utf8)) { lines.append($0) }
    #expect(lines == ["short", "next"])
  }

  @Test func aDatagramsLinesAreUnitsTheLastNeedingNoTerminator() {
    var lines: [String] = []
    Array("* help\r\n/who\nlast".utf8).withUnsafeBytes { LineReader.lines(ofDatagram: $0) { lines.append($0) } }
    #expect(lines == ["* help", "/who", "last"])
  }
}

// Plain Glibc sockets: the stand-in link is Linux's (the connection under it is shared code).
#if canImport(Glibc)
/// ``DatagramConnection`` (the `udp://` address proof, its retransmission and deadline, on
/// tasks) over a link of the test's own: a plain BSD UDP socket read on a thread, as
/// Network.framework's `NWConnection` is used on Apple platforms; against the real server.
@Suite(.onTestThreads) struct DatagramConnectionTests {
  @Test func itProvesItsAddressSendsTheHelloAndCarriesMessagesToARealServer() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let bob = try ChatProbe(tcpURL(server), name: "bob", room: "lobby")
    defer { Task { await bob.stop() } }
    try await bob.waitConnected()

    let link = try PlainUDPLink(port: server.udpAddress!.port)
    let connection = DatagramConnection(link: link, hello: ["iam:alice", "/join lobby"])
    link.start(delivering: connection)
    try await connection.connect(timeout: .seconds(10), server: "the test server")
    let sent = link.sent
    let proof = try #require(sent.firstIndex { $0.hasPrefix("/ok ") }, "\(sent)")
    #expect(sent.firstIndex(of: "iam:alice").map { $0 > proof } == true, "the hello follows the proof: \(sent)")

    try await connection.send("over my own socket")
    _ = try await bob.waitForMessage("over my own socket")
    try await bob.client.send("back to you")
    var heard = false
    for await input in connection.inputs {
      if case .text(let line) = input, line.contains("back to you") {
        heard = true
        break
      }
    }
    #expect(heard)

    connection.close()
    var ending: ChatTransportInput?
    for await input in connection.inputs { ending = input }
    #expect(ending == .closed(code: nil, reason: "closed"))
    #expect(link.isClosed)
    await #expect(throws: ChatClientError.closed) { try await connection.send("after close") }
  }

  @Test func aPortThatNeverAnswersIsATimeoutSayingSo() async throws {
    let silent = try PlainUDPLink.silentPort()
    defer { _ = close(silent.fd) }
    let link = try PlainUDPLink(port: silent.port)
    let connection = DatagramConnection(link: link, hello: ["iam:alice"])
    link.start(delivering: connection)
    let started = ContinuousClock.now
    let error = await #expect(throws: ChatClientError.timeout) {
      try await connection.connect(timeout: .milliseconds(600), server: "127.0.0.1:\(silent.port)")
    }
    #expect(error?.description.contains("no answer from udp://127.0.0.1:\(silent.port)") == true, "\(String(describing: error))")
    #expect(ContinuousClock.now - started < .seconds(10))
    #expect(link.sent.filter { $0.hasPrefix("/ok") }.count >= 2, "the request was sent again: \(link.sent)")
    #expect(!link.sent.contains("iam:alice"))
    #expect(link.isClosed)
  }
}

/// A ``DatagramLink`` on a plain blocking UDP socket connected to 127.0.0.1:`port`, read on
/// a thread of its own.
final class PlainUDPLink: DatagramLink {
  private struct State {
    var sent: [String] = []
    var closed = false
  }

  let fd: Int32
  private let state = Mutex(State())

  init(port: Int) throws {
    fd = try Self.socket(connectedTo: port)
  }

  var sent: [String] { state.withLock { $0.sent } }
  var isClosed: Bool { state.withLock { $0.closed } }

  /// Reads datagrams into `connection` until the socket is shut down.
  func start(delivering connection: DatagramConnection<PlainUDPLink>) {
    let fd = self.fd
    Thread.detachNewThread { [weak connection] in
      var buffer = [UInt8](repeating: 0, count: 65_536)
      while true {
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        // A refused datagram (ICMP port unreachable) reads as an error: keep listening.
        if count < 0 && errno == ECONNREFUSED { continue }
        guard count > 0, let connection else { break }
        buffer.withUnsafeBytes { connection.received(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
      }
    }
  }

  func send(_ datagram: String) -> Bool {
    state.withLock { s in
      guard !s.closed else { return false }
      s.sent.append(datagram)
      let bytes = Array(datagram.utf8)
      _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
      return true
    }
  }

  func close() {
    state.withLock { s in
      guard !s.closed else { return }
      s.closed = true
      _ = shutdown(fd, Int32(SHUT_RDWR))
    }
  }

  deinit { _ = Glibc.close(fd) }

  /// A bound UDP socket that never answers, and its port.
  static func silentPort() throws -> (fd: Int32, port: Int) {
    let fd = Glibc.socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    var address = loopback(port: 0)
    guard bindOrConnect(fd, &address, connect: false) == 0 else { throw TestFailure("bind: errno \(errno)") }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
  }

  private static func socket(connectedTo port: Int) throws -> Int32 {
    let fd = Glibc.socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    var address = loopback(port: port)
    guard fd >= 0, bindOrConnect(fd, &address, connect: true) == 0 else {
      throw TestFailure("UDP socket to port \(port): errno \(errno)")
    }
    return fd
  }

  private static func loopback(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port)).bigEndian
    address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
    return address
  }

  private static func bindOrConnect(_ fd: Int32, _ address: inout sockaddr_in, connect: Bool) -> Int32 {
    withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        return connect ? Glibc.connect(fd, $0, length) : Glibc.bind(fd, $0, length)
      }
    }
  }
}
#endif

/// The TLS decisions Network.framework's verify hook leaves to the client (``TLSPeerCheck``),
/// on certificates the `openssl` CLI makes: the pin of a certificate is what `openssl`
/// computes, a CA file is read as OpenSSL reads it, and each refusal is made.
@Suite(.onTestThreads, .enabled(ifAvailable: TestPKI.hasOpenSSL, "the openssl CLI is not installed"))
struct TLSPeerCheckTests {
  @Test func aCertificatesPinIsTheSHA256OfItsPublicKeyAsOpenSSLComputesIt() throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    for name in ["ca.pem", "server.pem", "self.pem"] {
      let pem = try String(contentsOfFile: pki.path(name), encoding: .utf8)
      let der = try #require(TLSPeerCheck.certificates(pem: pem).first)
      #expect(TLSPeerCheck.publicKeySHA256(certificate: der) == (try pki.publicKeyPin(ofCertificate: name)), "\(name)")
    }
    #expect(TLSPeerCheck.publicKeySHA256(certificate: Array("not DER".utf8)) == nil)
  }

  @Test func aCAFileAndPEMTextGiveTheirCertificatesAsAnchors() throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let ca = try String(contentsOfFile: pki.caFile, encoding: .utf8)
    let server = try String(contentsOfFile: pki.serverCertificate, encoding: .utf8)
    let fromFile = try TLSPeerCheck(TLSConfiguration(trustRoots: .caFile(pki.caFile)))
    #expect(fromFile.anchors?.count == 1)
    let both = try TLSPeerCheck(TLSConfiguration(trustRoots: .caPEM(ca + "\n" + server)))
    #expect(both.anchors?.count == 2)
    #expect(both.anchors?.first == fromFile.anchors?.first)
    #expect(try TLSPeerCheck(TLSConfiguration()).anchors == nil, "the system store")

    #expect(throws: ChatClientError.connectFailed) {
      try TLSPeerCheck(TLSConfiguration(trustRoots: .caFile(pki.path("missing.pem"))))
    }
    #expect(throws: ChatClientError.connectFailed) {
      try TLSPeerCheck(TLSConfiguration(trustRoots: .caPEM("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")))
    }
  }

  @Test func theChainThePinsOrBothDecide() throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let leaf = try #require(
      TLSPeerCheck.certificates(pem: try String(contentsOfFile: pki.selfSignedCertificate, encoding: .utf8)).first)
    let pin = try pki.publicKeyPin(ofCertificate: "self.pem")
    let otherPin = try pki.publicKeyPin(ofCertificate: "server.pem")

    let chainOnly = try TLSPeerCheck(TLSConfiguration())
    #expect(chainOnly.refusal(chainTrusted: true, leaf: leaf) == nil)
    #expect(chainOnly.refusal(chainTrusted: false, leaf: leaf) != nil)
    #expect(chainOnly.refusal(chainTrusted: nil, leaf: leaf) != nil, "verify on needs an evaluation")

    let pinnedAndChain = try TLSPeerCheck(TLSConfiguration(pinnedSHA256: [otherPin, pin]))
    #expect(pinnedAndChain.refusal(chainTrusted: true, leaf: leaf) == nil)
    #expect(pinnedAndChain.refusal(chainTrusted: false, leaf: leaf) != nil, "a pin does not replace the chain")

    let pinOnly = try TLSPeerCheck(TLSConfiguration(pinnedSHA256: [pin], verify: false))
    #expect(pinOnly.refusal(chainTrusted: nil, leaf: leaf) == nil)
    #expect(pinOnly.refusal(chainTrusted: nil, leaf: nil) != nil)
    let wrong = try TLSPeerCheck(TLSConfiguration(pinnedSHA256: [otherPin], verify: false))
    let refusal = try #require(wrong.refusal(chainTrusted: nil, leaf: leaf))
    #expect(refusal.contains("not pinned"), "\(refusal)")

    let nothing = try TLSPeerCheck(TLSConfiguration(verify: false))
    #expect(nothing.refusal(chainTrusted: nil, leaf: nil) == nil, "verify off and no pins: anything goes")
  }

  /// A hook that answers only yes or no (Network.framework's verify block) loses its reason:
  /// the connect error then names the platform's failure (`errSSLBadCert`), unless the
  /// verdict kept why the peer was refused.
  @Test func theVerdictKeepsWhyTheHookRefusedForTheConnectError() throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let leaf = try #require(
      TLSPeerCheck.certificates(pem: try String(contentsOfFile: pki.selfSignedCertificate, encoding: .utf8)).first)
    let platform = "-9808: bad certificate format"

    let otherPin = try pki.publicKeyPin(ofCertificate: "server.pem")
    let pinned = TLSVerdict(try TLSPeerCheck(TLSConfiguration(pinnedSHA256: [otherPin], verify: false)))
    #expect(pinned.describe(failure: platform) == platform, "nothing refused yet: the platform's words")
    #expect(!pinned.accepts(chainTrusted: nil, leaf: leaf))
    let said = pinned.describe(failure: platform)
    #expect(said.hasPrefix("TLS: the leaf's public key SHA-256 is ") && said.hasSuffix("which is not pinned"), "\(said)")

    let chain = TLSVerdict(try TLSPeerCheck(TLSConfiguration()))
    #expect(!chain.accepts(chainTrusted: false, leaf: leaf))
    #expect(chain.describe(failure: platform) == "TLS: the server's certificate is not trusted")
    // A later handshake the hook accepts leaves no stale reason behind.
    #expect(chain.accepts(chainTrusted: true, leaf: leaf))
    #expect(chain.describe(failure: "-9806: connection closed") == "-9806: connection closed")
  }
}

/// The shared pieces the Network.framework transports are made of, driven as its callbacks
/// drive them: ``StreamLineConnection`` over a recording link, ``ConnectGate``'s outcomes,
/// and ``TransportInputs``' single end.
@Suite(.onTestThreads) struct TransportSharedPieceTests {
  /// A ``StreamLink`` that records what is written and can be made to refuse.
  final class RecordingLink: StreamLink {
    private let state = Mutex((written: [UInt8](), closed: false))
    var written: String { state.withLock { String(decoding: $0.written, as: UTF8.self) } }
    var isClosed: Bool { state.withLock { $0.closed } }
    func write(_ bytes: [UInt8]) async -> Bool {
      state.withLock { s in
        guard !s.closed else { return false }
        s.written += bytes
        return true
      }
    }
    func close() { state.withLock { $0.closed = true } }
  }

  @Test func aStreamLineConnectionFramesBothWaysAndEndsOnce() async throws {
    let link = RecordingLink()
    let connection = StreamLineConnection(link: link)
    try await connection.sendHello(["iam:alice", "/join lobby"])
    try await connection.send("hi")
    #expect(link.written == "iam:alice\n/join lobby\nhi\n")

    connection.received(Array("* welcome\r\nAlice: h".utf8))
    connection.received(Array("ello\nunterminated".utf8))
    connection.ended("closed by the server")
    connection.ended("again")
    connection.received(Array("after the end\n".utf8))
    var inputs: [ChatTransportInput] = []
    for await input in connection.inputs { inputs.append(input) }
    #expect(
      inputs == [
        .text("* welcome"), .text("Alice: hello"), .text("unterminated"),
        .closed(code: nil, reason: "closed by the server"),
      ])

    connection.close()
    #expect(link.isClosed)
    await #expect(throws: ChatClientError.closed) { try await connection.send("late") }
  }

  @Test func aConnectGateTakesTheFirstOutcome() async throws {
    let opened = ConnectGate()
    opened.open()
    opened.fail(.connectFailed("too late"))
    try await opened.wait(timeout: .seconds(30), timeoutReason: "never") {}

    let failed = ConnectGate()
    Task {
      try? await Task.sleep(for: .milliseconds(20))
      failed.fail(.connectFailed("refused"))
      failed.open()
    }
    await #expect(throws: ChatClientError.connectFailed) {
      try await failed.wait(timeout: .seconds(30), timeoutReason: "never") {}
    }

    let silent = ConnectGate()
    let cancelled = Mutex(false)
    let error = await #expect(throws: ChatClientError.timeout) {
      try await silent.wait(timeout: .milliseconds(50), timeoutReason: "no connection within 50 ms") {
        cancelled.withLock { $0 = true }
      }
    }
    #expect(error?.description == "no connection within 50 ms")
    #expect(cancelled.withLock { $0 }, "a timed-out connect is given up")

    let abandoned = ConnectGate()
    let waiter = Task { () -> ChatClientError? in
      do {
        try await abandoned.wait(timeout: .seconds(30), timeoutReason: "never") {}
        return nil
      } catch {
        return error as? ChatClientError
      }
    }
    waiter.cancel()
    #expect(await waiter.value == .closed)
  }

  @Test func transportInputsEndOnceAndDropWhatFollows() async {
    let relay = TransportInputs()
    relay.yield(.text("one"))
    relay.yield(.pong)
    #expect(relay.end(code: 1000, reason: "bye"))
    #expect(!relay.end(code: nil, reason: "cancelled"))
    relay.yield(.text("late"))
    var inputs: [ChatTransportInput] = []
    for await input in relay.stream { inputs.append(input) }
    #expect(inputs == [.text("one"), .pong, .closed(code: 1000, reason: "bye")])
  }
}
