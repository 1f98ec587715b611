@testable import SwitchboardWebSocket
import SwitchboardTestSupport

/// Parses "81 05 48" style hex.
func hex(_ s: String) -> [UInt8] {
  s.split(whereSeparator: { $0 == " " || $0 == "\n" }).map { UInt8($0, radix: 16)! }
}

/// Splits `bytes` into chunks: all at once, byte by byte, or random sizes.
enum Split: CustomStringConvertible, CaseIterable {
  case whole, bytewise, random1, random2, random3
  var description: String { "\(self.name)" }
  private var name: String {
    switch self {
    case .whole: "whole"
    case .bytewise: "bytewise"
    case .random1: "random1"
    case .random2: "random2"
    case .random3: "random3"
    }
  }
  func chunks(_ bytes: [UInt8]) -> [[UInt8]] {
    switch self {
    case .whole: return [bytes]
    case .bytewise: return bytes.map { [$0] }
    case .random1, .random2, .random3:
      let seed: UInt64 = self == .random1 ? 1 : self == .random2 ? 2 : 3
      var rng = SeededGenerator(seed: seed)
      var result: [[UInt8]] = []
      var index = 0
      while index < bytes.count {
        let n = Int.random(in: 1...max(1, min(bytes.count - index, 17)), using: &rng)
        result.append(Array(bytes[index..<(index + n)]))
        index += n
      }
      return result
    }
  }
}

extension WebSocketFrameDecoder {
  /// Feeds chunks and collects frames, or the first error.
  mutating func decodeAll(_ chunks: [[UInt8]]) -> Result<[WebSocketFrame], WebSocketError> {
    var frames: [WebSocketFrame] = []
    do {
      for chunk in chunks {
        chunk.withUnsafeBytes { append($0) }
        while let frame = try nextFrame() { frames.append(frame) }
      }
    } catch {
      return .failure(error)
    }
    return .success(frames)
  }
}

extension WebSocketConnection {
  /// Feeds chunks and concatenates the actions.
  mutating func receiveAll(_ chunks: [[UInt8]]) -> [WebSocketAction] {
    chunks.flatMap { receive($0) }
  }
}

/// A masked client frame, as a browser would send it.
func clientFrame(
  _ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true, rsv1: Bool = false,
  key: UInt32 = 0x1234_5678
) -> [UInt8] {
  WebSocketFrameEncoder.encode(opcode: opcode, payload: payload, fin: fin, rsv1: rsv1, maskKey: key)
}

/// The close code of a close frame sent by a server (unmasked).
func closeCode(ofServerFrame bytes: [UInt8]) -> UInt16? {
  guard bytes.count >= 4, bytes[0] == 0x88 else { return nil }
  return UInt16(bytes[2]) << 8 | UInt16(bytes[3])
}

extension Array where Element == WebSocketAction {
  /// The code in the final `.close` action, if any.
  var closeCode: WebSocketCloseCode?? {
    for action in reversed() {
      if case .close(let code, _) = action { return .some(code) }
    }
    return nil
  }
  /// The close code of the close frame sent, if any.
  var sentCloseCode: UInt16? {
    for action in self {
      if case .send(let bytes) = action, let code = SwitchboardWebSocketTests.closeCode(ofServerFrame: bytes)
      {
        return code
      }
    }
    return nil
  }
}
