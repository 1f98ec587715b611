import SwitchboardTLS
import Testing
import SwitchboardTestSupport

/// The session state machine alone: two sessions in memory, no sockets.
@Suite(.onTestThreads, .enabled(ifAvailable: TLSSupport.isAvailable, "needs TLS (TLSSupport)"))
struct TLSSessionTests {
  /// How ciphertext moves between the two sessions.
  enum Split: String, CaseIterable, Sendable {
    case whole, oneByteAtATime, randomPieces
  }

  /// Moves bytes between a client and a server session until neither has anything to
  /// send, feeding them in `split` pieces. Returns what each side read.
  static func pump(
    _ client: TLSSession, _ server: TLSSession, split: Split, rng: inout SystemRandomNumberGenerator
  ) throws -> (client: [UInt8], server: [UInt8]) {
    var readByClient: [UInt8] = []
    var readByServer: [UInt8] = []
    for _ in 0..<1000 {
      var moved = false
      for (from, to) in [(client, server), (server, client)] {
        guard let bytes = from.takeCiphertext() else { continue }
        moved = true
        var start = 0
        while start < bytes.count {
          let size: Int
          switch split {
          case .whole: size = bytes.count
          case .oneByteAtATime: size = 1
          case .randomPieces: size = Int.random(in: 1...200, using: &rng)
          }
          let end = min(start + size, bytes.count)
          to.feedCiphertext(Array(bytes[start..<end]))
          start = end
          if case .failed(let error) = to.handshake() { throw error }
          let text = try to.readPlaintext()
          if to === client { readByClient += text } else { readByServer += text }
        }
      }
      if !moved { break }
    }
    return (readByClient, readByServer)
  }

  @Test(arguments: Split.allCases)
  func sessionsHandshakeAndExchangeDataInMemory(split: Split) throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let serverContext = try TLSContext(
      serverConfiguration: TLSServerConfiguration(
        certificateChainPEMFile: pki.serverCertificate, privateKeyPEMFile: pki.serverKey))
    let clientContext = try TLSContext(configuration: TLSConfiguration(trustRoots: .caFile(pki.caFile)))
    let client = try TLSSession(context: clientContext, serverName: "localhost")
    let server = try TLSSession(context: serverContext)
    var rng = SystemRandomNumberGenerator()

    #expect(client.handshake() == .wantIO)
    // Written before the handshake: kept and sent once it is done.
    try client.writePlaintext(Array("early".utf8))
    #expect(client.hasCiphertext)
    let early = try Self.pump(client, server, split: split, rng: &rng)
    #expect(client.handshake() == .done)
    #expect(server.handshake() == .done)

    let message = pattern(count: 50_000, seed: 1)
    try client.writePlaintext(message)
    try server.writePlaintext(Array("reply".utf8))
    var (toClient, toServer) = try Self.pump(client, server, split: split, rng: &rng)
    #expect(toClient == Array("reply".utf8))
    #expect(early.server == Array("early".utf8))
    #expect(firstDifference(toServer, message) == nil)

    client.close()
    (toClient, toServer) = try Self.pump(client, server, split: split, rng: &rng)
    #expect(server.receivedCloseNotify)
    #expect(!client.receivedCloseNotify)
    #expect(throws: TLSError.closed) { try client.writePlaintext([1]) }
    // The server may still answer (half-close), then closes too.
    try server.writePlaintext([9])
    server.close()
    (toClient, toServer) = try Self.pump(client, server, split: split, rng: &rng)
    #expect(toClient == [9])
    #expect(client.receivedCloseNotify)
  }

  @Test func aCorruptedRecordFailsTheSession() throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let server = try TLSSession(
      context: TLSContext(
        serverConfiguration: TLSServerConfiguration(
          certificateChainPEMFile: pki.serverCertificate, privateKeyPEMFile: pki.serverKey)))
    let client = try TLSSession(
      context: TLSContext(configuration: TLSConfiguration(trustRoots: .caFile(pki.caFile))),
      serverName: "localhost")
    var rng = SystemRandomNumberGenerator()
    _ = client.handshake()
    _ = try Self.pump(client, server, split: .whole, rng: &rng)
    try client.writePlaintext(Array("secret".utf8))
    var record = try #require(client.takeCiphertext())
    record[record.count - 3] ^= 0x40
    server.feedCiphertext(record)
    #expect(throws: TLSError.protocolViolation) { _ = try server.readPlaintext() }
    #expect(throws: TLSError.closed) { try server.writePlaintext([1]) }
  }

  @Test func garbageInsteadOfAServerHelloFailsTheHandshake() throws {
    let client = try TLSSession(context: TLSContext(configuration: TLSConfiguration(verify: false)))
    #expect(client.handshake() == .wantIO)
    client.feedCiphertext(Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8))
    guard case .failed(let error) = client.handshake() else {
      Issue.record("the handshake did not fail")
      return
    }
    #expect(error == .handshakeFailed)
    #expect(error.reason == "wrong version number")
  }
}
