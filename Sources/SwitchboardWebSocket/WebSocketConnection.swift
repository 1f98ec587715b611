/// The WebSocket protocol state machine for one connection (RFC 6455, plus RFC 7692
/// permessage-deflate when negotiated).
///
/// It does no I/O: feed it received bytes with ``receive(_:)-(UnsafeRawBufferPointer)``
/// and carry out the returned ``WebSocketAction``s in order; the `send…` methods
/// return the bytes to write. It assembles fragmented messages (control frames may be
/// interleaved), validates text incrementally and fails fast on invalid UTF-8, replies
/// to pings, and runs the close handshake:
///
/// - a received close is checked (1002 for a 1-byte payload or invalid code, 1007 for a
///   reason that is not UTF-8), answered by echoing its code, and finishes the
///   connection;
/// - any protocol error sends a close frame with the error's code and finishes;
/// - ``close(code:reason:)`` sends a close frame; the connection then finishes when the
///   peer's close arrives (the shell should also give up after a timeout of its own).
///
/// Once finished it ignores further bytes and every `send…` returns `nil`.
///
/// Not `Sendable`: it belongs to the one event loop that owns its socket.
public struct WebSocketConnection {
  /// Where the close handshake is.
  public enum Phase: Sendable, Hashable {
    /// Messages flow both ways.
    case open
    /// This side sent a close frame and waits for the peer's; incoming messages are
    /// still delivered, nothing more can be sent.
    case closing
    /// Finished: the TCP connection should be (or has been) closed.
    case closed
  }

  private enum State {
    case open
    case closeSent
    case closed
  }

  /// A data message being assembled from fragments. Separate from `State` because it is
  /// independent of the close handshake (a message may be completed while closing).
  private struct PartialMessage {
    var isText: Bool
    var isCompressed: Bool
    var bytes: [UInt8]
    var validator = UTF8Validator()
  }

  /// This side's role.
  public let role: WebSocketRole
  /// The limits in force.
  public let configuration: WebSocketConfiguration
  private var state = State.open
  private var decoder: WebSocketFrameDecoder
  private var deflate: PerMessageDeflate?
  private var message: PartialMessage?
  private let maskKeyProvider: () -> UInt32

  /// Creates the state machine for a connection whose opening handshake succeeded.
  /// - Parameters:
  ///   - role: This side's role.
  ///   - configuration: Limits and checks (default 1 MiB frames and messages).
  ///   - deflate: The negotiated permessage-deflate parameters, or `nil`.
  ///   - maskKeyProvider: Supplies a mask key per outgoing client frame; the default
  ///     uses `UInt32.random(in:)`. Tests may inject a fixed sequence.
  public init(
    role: WebSocketRole, configuration: WebSocketConfiguration = .default,
    deflate: PerMessageDeflate.Parameters? = nil,
    maskKeyProvider: @escaping () -> UInt32 = { UInt32.random(in: .min ... .max) }
  ) {
    self.role = role
    self.configuration = configuration
    self.maskKeyProvider = maskKeyProvider
    decoder = WebSocketFrameDecoder(
      role: role, maxFrameSize: configuration.maxFrameSize, allowsRSV1: deflate != nil)
    if let deflate {
      do {
        self.deflate = try PerMessageDeflate(role: role, parameters: deflate)
      } catch {
        // Only possible when zlib cannot allocate its state.
        fatalError("permessage-deflate: \(error)")
      }
    }
  }

  /// Where the close handshake is.
  public var phase: Phase {
    switch state {
    case .open: .open
    case .closeSent: .closing
    case .closed: .closed
    }
  }

  /// Whether permessage-deflate is in use.
  public var isCompressing: Bool { deflate != nil }

  // MARK: Receiving

  /// Feeds received bytes.
  /// - Returns: What to do, in order. Empty when more bytes are needed or the connection
  ///   is already finished.
  public mutating func receive(_ bytes: UnsafeRawBufferPointer) -> [WebSocketAction] {
    guard state != .closed else { return [] }
    decoder.append(bytes)
    var actions: [WebSocketAction] = []
    do {
      while state != .closed, let frame = try decoder.nextFrame() {
        try handle(frame, actions: &actions)
      }
    } catch {
      fail(error, actions: &actions)
    }
    return actions
  }

  /// Feeds received bytes.
  /// - Returns: What to do, in order.
  public mutating func receive(_ bytes: [UInt8]) -> [WebSocketAction] {
    bytes.withUnsafeBytes { receive($0) }
  }

  private mutating func fail(_ error: WebSocketError, actions: inout [WebSocketAction]) {
    if state == .open {
      actions.append(.send(encode(.close, Self.closePayload(code: error.closeCode, reason: error.message))))
    }
    actions.append(.close(code: error.closeCode, reason: error.message))
    state = .closed
    message = nil
  }

  private mutating func handle(_ frame: WebSocketFrame, actions: inout [WebSocketAction])
    throws(WebSocketError)
  {
    switch frame.opcode {
    case .text, .binary:
      guard message == nil else {
        throw .protocolError("new data frame while a fragmented message is in progress")
      }
      if frame.fin && !frame.rsv1 {
        try deliverWhole(isText: frame.opcode == .text, frame.payload, actions: &actions)
      } else {
        try continueMessage(
          PartialMessage(isText: frame.opcode == .text, isCompressed: frame.rsv1, bytes: []), frame, actions: &actions)
      }
    case .continuation:
      guard message != nil else { throw .protocolError("continuation frame without a message") }
      // Passed as a temporary so the buffer stays uniquely referenced and appending does
      // not copy it (with a `let` in between, debug builds copied the whole message per
      // fragment: quadratic, 13 s for 4 MiB in 64-byte fragments).
      try continueMessage(message.take()!, frame, actions: &actions)
    case .ping:
      if state == .open { actions.append(.send(encode(.pong, frame.payload))) }
      actions.append(.ping(frame.payload))
    case .pong:
      actions.append(.pong(frame.payload))
    case .close:
      let (code, reason) = try Self.parseClosePayload(frame.payload, validateUTF8: configuration.validateUTF8)
      if state == .open {
        actions.append(.send(encode(.close, Self.closePayload(code: code, reason: ""))))
      }
      actions.append(.close(code: code, reason: reason))
      state = .closed
      message = nil
    }
  }

  /// An unfragmented, uncompressed message: no copy.
  private func deliverWhole(isText: Bool, _ payload: [UInt8], actions: inout [WebSocketAction])
    throws(WebSocketError)
  {
    guard payload.count <= configuration.maxMessageSize else {
      throw .messageTooBig("message over the limit of \(configuration.maxMessageSize) bytes")
    }
    if isText {
      if configuration.validateUTF8 && !UTF8Validator.isValid(payload) {
        throw .invalidUTF8("text message is not UTF-8")
      }
      actions.append(.text(String(decoding: payload, as: UTF8.self)))
    } else {
      actions.append(.binary(payload))
    }
  }

  private mutating func continueMessage(
    _ partial: consuming PartialMessage, _ frame: WebSocketFrame, actions: inout [WebSocketAction]
  ) throws(WebSocketError) {
    let limit = configuration.maxMessageSize
    let before = partial.bytes.count
    if partial.isCompressed {
      try frame.payload.withBytes { (bytes) throws(WebSocketError) in
        try deflate!.decompressFragment(bytes, into: &partial.bytes, limit: limit)
      }
      if frame.fin { try deflate!.finishMessage(into: &partial.bytes, limit: limit) }
    } else {
      guard before + frame.payload.count <= limit else {
        throw .messageTooBig("message over the limit of \(limit) bytes")
      }
      if before == 0 {
        partial.bytes = frame.payload
      } else {
        partial.bytes.append(contentsOf: frame.payload)
      }
    }
    if partial.isText && configuration.validateUTF8 {
      let valid = partial.bytes.withUnsafeBytes { all in
        partial.validator.validate(UnsafeRawBufferPointer(rebasing: all[before...]))
      }
      guard valid else { throw .invalidUTF8("text message is not UTF-8") }
      if frame.fin && !partial.validator.isComplete { throw .invalidUTF8("text message ends mid character") }
    }
    if frame.fin {
      actions.append(
        partial.isText ? .text(String(decoding: partial.bytes, as: UTF8.self)) : .binary(partial.bytes))
    } else {
      message = partial
    }
  }

  // MARK: Sending

  /// Encodes a text message (compressed if permessage-deflate is in use).
  /// - Returns: The bytes to write, or `nil` once closing or closed.
  public mutating func sendText(_ text: String) -> [UInt8]? {
    guard state == .open else { return nil }
    var text = text
    return text.withUTF8 { encodeMessage(.text, UnsafeRawBufferPointer($0)) }
  }

  /// Encodes a binary message (compressed if permessage-deflate is in use).
  /// - Returns: The bytes to write, or `nil` once closing or closed.
  public mutating func sendBinary(_ bytes: [UInt8]) -> [UInt8]? {
    guard state == .open else { return nil }
    return bytes.withUnsafeBytes { encodeMessage(.binary, $0) }
  }

  /// Encodes a ping.
  /// - Returns: The bytes to write, or `nil` once closing or closed or if `payload` is
  ///   over 125 bytes.
  public mutating func ping(_ payload: [UInt8] = []) -> [UInt8]? {
    guard state == .open, payload.count <= 125 else { return nil }
    return encode(.ping, payload)
  }

  /// Encodes an unsolicited pong (a heartbeat).
  /// - Returns: The bytes to write, or `nil` once closing or closed or if `payload` is
  ///   over 125 bytes.
  public mutating func pong(_ payload: [UInt8] = []) -> [UInt8]? {
    guard state == .open, payload.count <= 125 else { return nil }
    return encode(.pong, payload)
  }

  /// Starts the close handshake. The connection finishes when the peer's close frame
  /// arrives (a ``WebSocketAction/close(code:reason:)`` from ``receive(_:)-(UnsafeRawBufferPointer)``).
  /// - Parameters:
  ///   - code: The close code (default 1000, `.normalClosure`); `nil` sends an empty close
  ///     payload.
  ///   - reason: The reason, cut to 123 bytes on a character boundary.
  /// - Returns: The close frame to write, or `nil` once closing or closed.
  public mutating func close(code: WebSocketCloseCode? = .normalClosure, reason: String = "") -> [UInt8]? {
    guard state == .open else { return nil }
    state = .closeSent
    return encode(.close, Self.closePayload(code: code, reason: reason))
  }

  private mutating func encodeMessage(_ opcode: WebSocketOpcode, _ bytes: UnsafeRawBufferPointer) -> [UInt8] {
    let maskKey = role == .client ? maskKeyProvider() : nil
    if deflate != nil, let compressed = try? deflate!.compress(bytes) {
      return WebSocketFrameEncoder.encode(opcode: opcode, payload: compressed, rsv1: true, maskKey: maskKey)
    }
    return WebSocketFrameEncoder.encode(opcode: opcode, payload: bytes, maskKey: maskKey)
  }

  private func encode(_ opcode: WebSocketOpcode, _ payload: [UInt8]) -> [UInt8] {
    WebSocketFrameEncoder.encode(
      opcode: opcode, payload: payload, maskKey: role == .client ? maskKeyProvider() : nil)
  }

  // MARK: Shared server frames

  /// An unmasked, uncompressed server text frame, for encoding a broadcast once and
  /// writing the same bytes to many connections. Only valid on connections without
  /// permessage-deflate (see ``isCompressing``).
  public static func encodeServerFrame(text: String) -> [UInt8] {
    var text = text
    return text.withUTF8 { WebSocketFrameEncoder.encode(opcode: .text, payload: UnsafeRawBufferPointer($0)) }
  }

  /// An unmasked, uncompressed server binary frame, for encoding a broadcast once and
  /// writing the same bytes to many connections. Only valid on connections without
  /// permessage-deflate (see ``isCompressing``).
  public static func encodeServerFrame(binary: [UInt8]) -> [UInt8] {
    WebSocketFrameEncoder.encode(opcode: .binary, payload: binary)
  }
}

@available(*, unavailable)
extension WebSocketConnection: Sendable {}
