/// One WebSocket frame (RFC 6455 section 5.2) with its payload already unmasked.
public struct WebSocketFrame: Sendable, Hashable {
  /// Whether this is the final frame of a message.
  public var fin: Bool
  /// The RSV1 bit; set on the first frame of a compressed message when
  /// permessage-deflate is negotiated.
  public var rsv1: Bool
  /// The RSV2 bit (no extension here uses it).
  public var rsv2: Bool
  /// The RSV3 bit (no extension here uses it).
  public var rsv3: Bool
  /// The frame's opcode.
  public var opcode: WebSocketOpcode
  /// The application payload, unmasked.
  public var payload: [UInt8]

  /// Creates a frame.
  /// - Parameters:
  ///   - fin: Whether this is the final frame of its message (default `true`).
  ///   - rsv1: The RSV1 bit (default `false`).
  ///   - rsv2: The RSV2 bit (default `false`).
  ///   - rsv3: The RSV3 bit (default `false`).
  ///   - opcode: The frame's opcode.
  ///   - payload: The unmasked payload.
  public init(
    fin: Bool = true, rsv1: Bool = false, rsv2: Bool = false, rsv3: Bool = false,
    opcode: WebSocketOpcode, payload: [UInt8] = []
  ) {
    self.fin = fin
    self.rsv1 = rsv1
    self.rsv2 = rsv2
    self.rsv3 = rsv3
    self.opcode = opcode
    self.payload = payload
  }
}

/// Which end of a WebSocket connection this side is.
///
/// The role decides masking: clients mask every frame they send, servers never do
/// (RFC 6455 section 5.1).
public enum WebSocketRole: Sendable, Hashable {
  /// The accepting side; expects masked frames and sends unmasked ones.
  case server
  /// The connecting side; sends masked frames and rejects masked ones.
  case client
}
