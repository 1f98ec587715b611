import SwitchboardTestSupport
import Testing

@testable import SwitchboardWebSocket

/// Random and mutated input to `WebSocketConnection.receive` must never crash, and the
/// connection must keep its promises (nothing after `.close`, limits respected).
@Suite(.onTestThreads)
struct WebSocketConnectionFuzzTests {
  static func seedStream(_ rng: inout SeededGenerator, compressed: PerMessageDeflate?) -> [UInt8] {
    var compressor = compressed
    var out: [UInt8] = []
    for _ in 0..<Int.random(in: 1...6, using: &rng) {
      let count = [0, 1, 3, 20, 125, 126, 300][Int.random(in: 0...6, using: &rng)]
      let payload = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
      let key = UInt32.random(in: 0...UInt32.max, using: &rng)
      switch Int.random(in: 0...6, using: &rng) {
      case 0: out += clientFrame(.text, Array("héllo wörld".utf8), key: key)
      case 1: out += clientFrame(.binary, payload, key: key)
      case 2: out += clientFrame(.ping, Array(payload.prefix(125)), key: key)
      case 3:
        out += clientFrame(.text, Array("κό".utf8), fin: false, key: key)
        out += clientFrame(.pong, [], key: key)
        out += clientFrame(.continuation, Array("σμε".utf8), key: key)
      case 4: out += clientFrame(.close, [0x03, 0xE8] + Array("bye".utf8), key: key)
      case 5:
        if var c = compressor, let z = try? c.compress(payload) {
          out += clientFrame(.binary, z, rsv1: true, key: key)
          compressor = c
        } else {
          out += clientFrame(.binary, payload, key: key)
        }
      default: out += payload
      }
    }
    return out
  }

  static func mutate(_ input: [UInt8], _ rng: inout SeededGenerator) -> [UInt8] {
    var bytes = input
    for _ in 0..<Int.random(in: 0...4, using: &rng) {
      guard !bytes.isEmpty else { break }
      let i = Int.random(in: 0..<bytes.count, using: &rng)
      switch Int.random(in: 0...4, using: &rng) {
      case 0: bytes[i] ^= 1 << UInt8.random(in: 0...7, using: &rng)
      case 1: bytes[i] = UInt8.random(in: 0...255, using: &rng)
      case 2: bytes.remove(at: i)
      case 3: bytes.insert(UInt8.random(in: 0...255, using: &rng), at: i)
      default: bytes.removeLast(Int.random(in: 0...bytes.count - i, using: &rng))
      }
    }
    return bytes
  }

  @Test(arguments: [false, true])
  func randomAndMutatedInputNeverCrashes(deflate: Bool) throws {
    var rng = SeededGenerator(seed: deflate ? 1234 : 4321)
    let configuration = WebSocketConfiguration(maxMessageSize: 64 << 10)
    for iteration in 0..<2500 {
      let role: WebSocketRole = iteration % 4 == 3 ? .client : .server
      let params: PerMessageDeflate.Parameters? =
        deflate
        ? .init(serverNoContextTakeover: iteration % 2 == 0, clientNoContextTakeover: iteration % 3 == 0)
        : nil
      let input: [UInt8]
      if iteration % 5 == 0 {
        input = (0..<Int.random(in: 0...200, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
      } else {
        let sender = try params.map { try PerMessageDeflate(role: .client, parameters: $0) }
        input = Self.mutate(Self.seedStream(&rng, compressed: sender), &rng)
      }
      var ws = WebSocketConnection(
        role: role, configuration: configuration, deflate: params, maskKeyProvider: { 7 })
      var closed = false
      var index = 0
      while index < input.count {
        let n = Int.random(in: 1...max(1, input.count - index), using: &rng)
        let actions = ws.receive(Array(input[index..<(index + n)]))
        index += n
        if closed { #expect(actions.isEmpty) }
        for (position, action) in actions.enumerated() {
          switch action {
          case .close:
            #expect(position == actions.count - 1, "close must be the last action")
            closed = true
          case .text(let s): #expect(s.utf8.count <= configuration.maxMessageSize)
          case .binary(let b): #expect(b.count <= configuration.maxMessageSize)
          case .ping(let p), .pong(let p): #expect(p.count <= 125)
          case .send: break
          }
        }
      }
      #expect(closed == (ws.phase == .closed))
      // Sending still works or refuses cleanly.
      _ = ws.sendText("after")
      _ = ws.close()
    }
  }
}
