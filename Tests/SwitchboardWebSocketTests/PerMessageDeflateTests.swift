import SwitchboardTestSupport
import Testing

@testable import SwitchboardWebSocket

@Suite(.onTestThreads)
struct PerMessageDeflateTests {
  typealias Parameters = PerMessageDeflate.Parameters
  let hello = Array("Hello".utf8)

  func codec(_ role: WebSocketRole, _ parameters: Parameters = Parameters()) throws -> PerMessageDeflate {
    try PerMessageDeflate(role: role, parameters: parameters)
  }

  @Test func compressesHelloAsInRFC7692() throws {
    var server = try codec(.server)
    #expect(try server.compress(hello) == hex("f2 48 cd c9 c9 07 00"))
    // With context takeover the second "Hello" refers back to the first (7.2.3.2).
    #expect(try server.compress(hello) == hex("f2 00 11 00 00"))
  }

  @Test func noContextTakeoverRepeatsTheSameBytes() throws {
    var server = try codec(.server, Parameters(serverNoContextTakeover: true))
    #expect(try server.compress(hello) == hex("f2 48 cd c9 c9 07 00"))
    #expect(try server.compress(hello) == hex("f2 48 cd c9 c9 07 00"))
  }

  @Test func decompressesRFC7692Examples() throws {
    var client = try codec(.client)
    #expect(try client.decompress(hex("f2 48 cd c9 c9 07 00"), limit: 100) == hello)
    #expect(try client.decompress(hex("f2 00 11 00 00"), limit: 100) == hello)
    // Uncompressed (stored) block, 7.2.3.3.
    var other = try codec(.client)
    #expect(try other.decompress(hex("00 05 00 fa ff 48 65 6c 6c 6f 00"), limit: 100) == hello)
    // BFINAL set, 7.2.3.4 ... followed by a new message on a fresh stream.
    #expect(try other.decompress(hex("f3 48 cd c9 c9 07 00 00"), limit: 100) == hello)
  }

  @Test func emptyMessageRoundTrips() throws {
    var server = try codec(.server)
    var client = try codec(.client)
    let compressed = try server.compress([])
    #expect(!compressed.isEmpty)
    #expect(try client.decompress(compressed, limit: 10) == [])
  }

  static let parameterSets: [Parameters] = [
    Parameters(),
    Parameters(serverNoContextTakeover: true, clientNoContextTakeover: true),
    Parameters(serverNoContextTakeover: true),
    Parameters(serverMaxWindowBits: 8, clientMaxWindowBits: 8),
    Parameters(serverMaxWindowBits: 9, clientMaxWindowBits: 12),
    Parameters(clientNoContextTakeover: true, serverMaxWindowBits: 10, clientMaxWindowBits: 15),
  ]

  @Test(arguments: 0..<parameterSets.count)
  func roundTripsBothDirections(index: Int) throws {
    let parameters = Self.parameterSets[index]
    var server = try codec(.server, parameters)
    var client = try codec(.client, parameters)
    var rng = SeededGenerator(seed: UInt64(index))
    for i in 0..<30 {
      let words = (0..<(i * 13)).map { _ in
        ["chat", "room", "lobby", "héllo", "𝄞", "\n"].randomElement(using: &rng)!
      }
      var message = Array(words.joined(separator: " ").utf8)
      if i % 7 == 3 { message = (0..<5000).map { _ in UInt8.random(in: 0...255, using: &rng) } }
      let down = try server.compress(message)
      #expect(try client.decompress(down, limit: 1 << 20) == message)
      let up = try client.compress(message)
      #expect(try server.decompress(up, limit: 1 << 20) == message)
    }
  }

  @Test func decompressionBombStopsAtTheLimit() throws {
    var sender = try codec(.client)
    let bomb = try sender.compress([UInt8](repeating: 0, count: 20 << 20))
    #expect(bomb.count < 40_000)
    var server = try codec(.server)
    #expect(throws: WebSocketError.messageTooBig) { _ = try server.decompress(bomb, limit: 1 << 20) }
    // Streaming: output never grows past limit + 1 bytes.
    var output: [UInt8] = []
    var streaming = try codec(.server)
    #expect(throws: WebSocketError.messageTooBig) {
      try bomb.withUnsafeBytes { bytes in try streaming.decompressFragment(bytes, into: &output, limit: 4096)
      }
    }
    #expect(output.count <= 4097)
  }

  @Test func invalidCompressedDataIs1002() throws {
    var server = try codec(.server)
    #expect(throws: WebSocketError.protocolError) {
      _ = try server.decompress(hex("ff ff ff ff"), limit: 100)
    }
  }

  // MARK: Negotiation

  @Test func serverAcceptsPlainOffer() throws {
    let result = try #require(PerMessageDeflate.negotiate(offer: "permessage-deflate"))
    #expect(result.parameters == Parameters())
    #expect(result.response == "permessage-deflate")
  }

  @Test func serverAcceptsBrowserOffer() throws {
    let result = try #require(
      PerMessageDeflate.negotiate(
        offer: "permessage-deflate; client_max_window_bits",
        preferences: Parameters(
          serverNoContextTakeover: true, clientNoContextTakeover: true, clientMaxWindowBits: 12)))
    #expect(
      result.response
        == "permessage-deflate; server_no_context_takeover; client_no_context_takeover; client_max_window_bits=12"
    )
    #expect(
      result.parameters
        == Parameters(serverNoContextTakeover: true, clientNoContextTakeover: true, clientMaxWindowBits: 12))
  }

  @Test func serverHonoursRequestedParameters() throws {
    let result = try #require(
      PerMessageDeflate.negotiate(
        offer:
          "permessage-deflate; server_no_context_takeover; server_max_window_bits=\"10\"; client_max_window_bits=9"
      ))
    #expect(
      result.parameters
        == Parameters(serverNoContextTakeover: true, serverMaxWindowBits: 10, clientMaxWindowBits: 9))
    #expect(
      result.response
        == "permessage-deflate; server_no_context_takeover; server_max_window_bits=10; client_max_window_bits=9"
    )
  }

  @Test func serverPicksFirstAcceptableOffer() throws {
    let offers = [
      "x-webkit-deflate-frame, permessage-deflate; server_max_window_bits=16",
      "permessage-deflate; unknown_param, permessage-deflate; server_max_window_bits=12",
      "permessage-deflate",
    ]
    let result = try #require(PerMessageDeflate.negotiate(offers: offers))
    #expect(result.parameters.serverMaxWindowBits == 12)
  }

  @Test(arguments: [
    "permessage-deflate; server_max_window_bits", "permessage-deflate; server_max_window_bits=7",
    "permessage-deflate; client_max_window_bits=16", "permessage-deflate; server_no_context_takeover=1",
    "permessage-deflate; server_no_context_takeover; server_no_context_takeover", "permessage-deflate; foo",
    "x-other", "", "permessage-deflate; server_max_window_bits=010",
  ])
  func serverDeclinesInvalidOffers(offer: String) {
    #expect(PerMessageDeflate.negotiate(offer: offer) == nil)
  }

  @Test func clientOfferAndResponse() throws {
    #expect(PerMessageDeflate.clientOffer() == "permessage-deflate; client_max_window_bits")
    let wanted = Parameters(serverNoContextTakeover: true, serverMaxWindowBits: 12, clientMaxWindowBits: 14)
    let offer = PerMessageDeflate.clientOffer(wanted)
    #expect(
      offer
        == "permessage-deflate; server_no_context_takeover; server_max_window_bits=12; client_max_window_bits=14"
    )
    // The server answers; the client checks the answer.
    let (serverSide, response) = try #require(PerMessageDeflate.negotiate(offer: offer))
    let clientSide = try PerMessageDeflate.acceptResponse(response, offered: wanted)
    #expect(clientSide == serverSide)
  }

  @Test(arguments: [
    "permessage-deflate; server_max_window_bits=13",  // above the offer
    "permessage-deflate",  // ignores server_no_context_takeover and server_max_window_bits
    "permessage-deflate; server_no_context_takeover; server_max_window_bits=12; client_max_window_bits=15",
    "permessage-deflate; server_no_context_takeover; server_max_window_bits=12; foo",
    "x-other",
  ])
  func clientRejectsBadResponses(response: String) {
    let wanted = Parameters(serverNoContextTakeover: true, serverMaxWindowBits: 12, clientMaxWindowBits: 14)
    #expect(throws: WebSocketError.protocolError) {
      _ = try PerMessageDeflate.acceptResponse(response, offered: wanted)
    }
  }

  // MARK: Through the connection

  @Test(arguments: 0..<parameterSets.count)
  func connectionsCompressBothWays(index: Int) throws {
    let parameters = Self.parameterSets[index]
    var client = WebSocketConnection(role: .client, deflate: parameters, maskKeyProvider: { 0xDEAD_BEEF })
    var server = WebSocketConnection(role: .server, deflate: parameters)
    for i in 0..<20 {
      let text = String(repeating: "message \(i) ", count: i * 10)
      let sent = client.sendText(text)
      let up = try #require(sent)
      #expect(up[0] == 0xC1)  // FIN + RSV1 + text
      #expect(server.receive(up) == [.text(text)])
      let reply = server.sendBinary(Array(text.utf8))
      let down = try #require(reply)
      #expect(down[0] == 0xC2)
      #expect(client.receive(down) == [.binary(Array(text.utf8))])
    }
  }

  @Test func fragmentedCompressedMessageWithInterleavedPing() throws {
    var sender = try codec(.client)
    let text = String(repeating: "κόσμε hello ", count: 50)
    let compressed = try sender.compress(Array(text.utf8))
    var server = WebSocketConnection(role: .server, deflate: Parameters())
    let mid = compressed.count / 2
    let wire =
      clientFrame(.text, Array(compressed[..<mid]), fin: false, rsv1: true) + clientFrame(.ping, [])
      + clientFrame(.continuation, Array(compressed[mid...]))
    for split in Split.allCases {
      var s = WebSocketConnection(role: .server, deflate: Parameters())
      #expect(s.receiveAll(split.chunks(wire)) == [.send(hex("8a 00")), .ping([]), .text(text)], "\(split)")
    }
    #expect(server.receive(clientFrame(.text, hello)) == [.text("Hello")])  // uncompressed still fine
  }

  @Test func compressedBombThroughConnectionIs1009() throws {
    var sender = try codec(.client)
    let bomb = try sender.compress([UInt8](repeating: 0x41, count: 4 << 20))
    var server = WebSocketConnection(role: .server, deflate: Parameters())
    let actions = server.receive(clientFrame(.text, bomb, rsv1: true))
    #expect(actions.sentCloseCode == 1009)
  }

  @Test func compressedInvalidUTF8Is1007() throws {
    var sender = try codec(.client)
    let compressed = try sender.compress(hex("48 65 ed a0 80"))
    var server = WebSocketConnection(role: .server, deflate: Parameters())
    #expect(server.receive(clientFrame(.text, compressed, rsv1: true)).sentCloseCode == 1007)
  }

  /// zlib cannot allocate its state (injected): the connection fails 1011 on the peer's first
  /// frame, compressed or not, and the compressed one is never decoded (nothing traps).
  @Test(arguments: [true, false])
  func aCodecThatCannotStartFailsTheConnectionWith1011(compressedFirst: Bool) throws {
    var sender = try codec(.client)
    let frame =
      compressedFirst ? clientFrame(.text, try sender.compress(hello), rsv1: true) : clientFrame(.text, hello)
    var server = WebSocketConnection(
      role: .server, configuration: .default, deflate: Parameters(), maskKeyProvider: { 0 },
      makeDeflate: { _, _ throws(WebSocketError) in throw .internal("zlib: out of memory") })
    #expect(!server.isCompressing)
    let actions = server.receive(frame)
    #expect(actions.sentCloseCode == 1011)
    #expect(!actions.contains(.text("Hello")))
    #expect(server.phase == .closed)
  }

  @Test func rsv1WithoutDeflateIs1002() {
    var server = WebSocketConnection(role: .server)
    #expect(server.receive(clientFrame(.text, hex("f2 48 cd c9 c9 07 00"), rsv1: true)).sentCloseCode == 1002)
  }
}
