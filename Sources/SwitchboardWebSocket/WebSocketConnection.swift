/// The WebSocket protocol state machine for one connection (RFC 6455, plus RFC 7692
/// permessage-deflate when negotiated).
///
/// It does no I/O: feed it received bytes with ``append(_:)`` and take the
/// ``WebSocketAction``s one at a time with ``nextAction()``, carrying each out before
/// asking for the next; the `send…` methods return the bytes to write. Frames are decoded
/// only as actions are asked for, so a reply made while handling a message (an echo) is
/// encoded, and queued, before a later frame of the same read can fail the connection:
/// the close frame follows it (RFC 6455 strictness; ``receive(_:)-(UnsafeRawBufferPointer)``
/// returns all actions of a read at once and loses that). It assembles fragmented messages
/// (control frames may be interleaved), validates text incrementally — as the bytes
/// arrive, inside a frame and across fragments, and on inflated bytes as they come out of
/// permessage-deflate — and fails fast on invalid UTF-8, replies to pings, and runs the
/// close handshake:
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
    /// Finished by a close handshake (or a close timeout of the shell's).
    case closed
    /// Finished because this side failed the connection (a protocol error of the peer).
    case failed
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
  @usableFromInline var decoder: WebSocketFrameDecoder
  /// Boxed: the codec is ~50 bytes inline (its parameters and two zlib streams) that a
  /// connection without permessage-deflate — the common case — would carry as `nil`. Its
  /// fields are constants and its zlib streams are shared by copies anyway, so a copy of the
  /// connection sharing the box changes nothing.
  private var deflate: DeflateBox?
  private var message: PartialMessage?
  /// The second action of a frame that makes two (a ping's pong and the ping, a close
  /// frame and the close), handed out by the next ``nextAction()``.
  private var stashed: WebSocketAction?
  /// An action decoded ahead by ``failsNext()``, handed out before `stashed`.
  private var lookahead: WebSocketAction?
  /// A protocol error found ahead by ``failsNext()``: the connection fails when
  /// ``nextAction()`` reaches it (until then it is open and can still send).
  private var pendingError: WebSocketError?
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
    self.init(
      role: role, configuration: configuration, deflate: deflate, maskKeyProvider: maskKeyProvider,
      makeDeflate: { role, parameters throws(WebSocketError) in
        try PerMessageDeflate(role: role, parameters: parameters)
      })
  }

  /// The initialiser above, with what makes the permessage-deflate codec given (tests make it
  /// fail, as zlib does when it cannot allocate its state).
  ///
  /// The extension was agreed in the handshake already, so a codec that cannot be made is
  /// the server's failure, not the peer's: the connection fails with 1011 at its first
  /// ``nextAction()`` instead of stopping the process, and frames the peer compressed are
  /// never decoded.
  package init(
    role: WebSocketRole, configuration: WebSocketConfiguration, deflate: PerMessageDeflate.Parameters?,
    maskKeyProvider: @escaping () -> UInt32,
    makeDeflate: (WebSocketRole, PerMessageDeflate.Parameters) throws(WebSocketError) -> PerMessageDeflate
  ) {
    self.role = role
    self.configuration = configuration
    self.maskKeyProvider = maskKeyProvider
    var codec: DeflateBox?
    if let deflate {
      do {
        codec = DeflateBox(try makeDeflate(role, deflate))
      } catch {
        pendingError = .internal("permessage-deflate could not start: \(error.message)")
      }
    }
    self.deflate = codec
    decoder = WebSocketFrameDecoder(
      role: role, maxFrameSize: configuration.maxFrameSize, allowsRSV1: codec != nil, checksMessages: true,
      validatesUTF8: configuration.validateUTF8)
  }

  /// Where the close handshake is.
  public var phase: Phase {
    switch state {
    case .open: .open
    case .closeSent: .closing
    case .closed, .failed: .closed
    }
  }

  /// Whether this side failed the connection because of something the peer sent (its
  /// close frame is out; the shell should stop reading, half-close and give the peer a
  /// moment to take the close frame, rather than reset a connection with unread input).
  public var hasFailed: Bool { state == .failed }

  private var isFinished: Bool { state == .closed || state == .failed }

  /// Whether permessage-deflate is in use.
  public var isCompressing: Bool { deflate != nil }

  // MARK: Receiving

  /// Buffers received bytes; ``nextAction()`` decodes them.
  public mutating func append(_ bytes: UnsafeRawBufferPointer) {
    guard !isFinished else { return }
    decoder.append(bytes)
  }

  /// The next thing to do about the bytes appended so far, or `nil` when more bytes are
  /// needed or the connection is finished. Carry it out — including any reply it calls
  /// for, such as an echo through ``sendText(_:)`` — before asking for the next one: a
  /// frame is decoded only when its turn comes, so a protocol error further on produces
  /// its close frame after those replies.
  public mutating func nextAction() -> WebSocketAction? {
    if let action = lookahead.take() { return action }
    if let action = stashed.take() { return action }
    if let error = pendingError.take() { return fail(error) }
    guard !isFinished else { return nil }
    do {
      return try decodeAction()
    } catch {
      return fail(error)
    }
  }

  /// What ``nextInput()`` hands out: an action, or a text message left where it arrived.
  package enum Input {
    /// What ``nextAction()`` would have returned.
    case action(WebSocketAction)
    /// A whole text message in one uncompressed frame, UTF-8 validated: its bytes are
    /// in the connection's receive buffer, at these indices. Read them with
    /// ``withReceivedText(_:_:)`` before the connection is used again.
    case receivedText(Range<Int>)
  }

  /// ``nextAction()``, except that a whole text message in one uncompressed frame is not
  /// made into a `String` (``Input/receivedText(_:)``): a server that copies the text into
  /// its own storage saves the string's allocation, check and free.
  package mutating func nextInput() -> Input? {
    guard lookahead == nil, stashed == nil, pendingError == nil, !isFinished else {
      return nextAction().map(Input.action)
    }
    do {
      return try decodeInput(inPlace: true)
    } catch {
      return .action(fail(error))
    }
  }

  /// Lends `body` the UTF-8 of the ``Input/receivedText(_:)`` the last ``nextInput()``
  /// returned. (`mutating` only so that a caller's stored connection is lent, not copied;
  /// inlinable, so a server in another module calls it specialized, with no closure
  /// context.)
  @inlinable
  package mutating func withReceivedText<R>(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) -> R) -> R {
    decoder.withBytes(in: range, body)
  }

  /// Decodes frames until one makes an action (`nil`: more bytes are needed).
  private mutating func decodeAction() throws(WebSocketError) -> WebSocketAction? {
    switch try decodeInput(inPlace: false) {
    case .action(let action): action
    case .receivedText, nil: nil  // (Not made without `inPlace`.)
    }
  }

  /// Decodes frames until one makes an action or, with `inPlace`, a text message left in
  /// the buffer (`nil`: more bytes are needed).
  private mutating func decodeInput(inPlace: Bool) throws(WebSocketError) -> Input? {
    // A whole text message in one frame comes as its string or its place (up to the
    // message limit: a larger one goes the frame's way, to be refused there as before).
    while let decoded = try decoder.next(wholeTextUpTo: configuration.maxMessageSize, inPlace: inPlace) {
      switch decoded {
      case .text(let text):
        try checkNoMessageInProgress()
        return .action(.text(text))
      case .textInPlace(let range):
        try checkNoMessageInProgress()
        return .receivedText(range)
      case .frame(let frame):
        if let action = try handle(frame) { return .action(action) }
      }
    }
    return nil
  }

  /// (The decoder checks fragment order at the header; this guards the assembly.)
  private func checkNoMessageInProgress() throws(WebSocketError) {
    guard message == nil else { throw .protocolError("new data frame while a fragmented message is in progress") }
  }

  /// Whether the next ``nextAction()`` fails the connection: decodes ahead (the action it
  /// finds is kept for ``nextAction()``) without finishing anything, so a shell whose
  /// replies come later — a client whose application echoes messages asynchronously — can
  /// wait until they are sent before it takes the close frame.
  public mutating func failsNext() -> Bool {
    if pendingError != nil { return true }
    guard lookahead == nil, stashed == nil, !isFinished else { return false }
    do {
      if let action = try decodeAction() {
        lookahead = action
        return false
      }
    } catch {
      pendingError = error
      return true
    }
    return false
  }

  /// Feeds received bytes and returns every action they make at once.
  ///
  /// Replies made while carrying these actions out are encoded after the whole read was
  /// handled: when the read ends with a protocol error they are refused (the connection is
  /// already finished). Shells that answer messages use ``append(_:)`` and
  /// ``nextAction()``.
  /// - Returns: What to do, in order. Empty when more bytes are needed or the connection
  ///   is already finished.
  public mutating func receive(_ bytes: UnsafeRawBufferPointer) -> [WebSocketAction] {
    append(bytes)
    var actions: [WebSocketAction] = []
    while let action = nextAction() { actions.append(action) }
    return actions
  }

  /// Feeds received bytes and returns every action they make at once.
  /// - Returns: What to do, in order.
  public mutating func receive(_ bytes: [UInt8]) -> [WebSocketAction] {
    bytes.withUnsafeBytes { receive($0) }
  }

  private mutating func fail(_ error: WebSocketError) -> WebSocketAction {
    let wasOpen = state == .open
    state = .failed
    message = nil
    let close = WebSocketAction.close(code: error.closeCode, reason: error.message)
    guard wasOpen else { return close }
    stashed = close
    return .send(encode(.close, Self.closePayload(code: error.closeCode, reason: error.message)))
  }

  /// The frame's first action (a second one goes to `stashed`), or `nil` for a fragment
  /// that completes nothing.
  private mutating func handle(_ frame: WebSocketFrame) throws(WebSocketError) -> WebSocketAction? {
    switch frame.opcode {
    case .text, .binary:
      try checkNoMessageInProgress()
      if frame.fin && !frame.rsv1 {
        return try deliverWhole(isText: frame.opcode == .text, frame.payload)
      }
      return try continueMessage(
        PartialMessage(isText: frame.opcode == .text, isCompressed: frame.rsv1, bytes: []), frame)
    case .continuation:
      guard message != nil else { throw .protocolError("continuation frame without a message") }
      // Passed as a temporary so the buffer stays uniquely referenced and appending does
      // not copy it (with a `let` in between, debug builds copied the whole message per
      // fragment: quadratic, 13 s for 4 MiB in 64-byte fragments).
      return try continueMessage(message.take()!, frame)
    case .ping:
      guard state == .open else { return .ping(frame.payload) }
      stashed = .ping(frame.payload)
      return .send(encode(.pong, frame.payload))
    case .pong:
      return .pong(frame.payload)
    case .close:
      let (code, reason) = try Self.parseClosePayload(frame.payload, validateUTF8: configuration.validateUTF8)
      let wasOpen = state == .open
      state = .closed
      message = nil
      let close = WebSocketAction.close(code: code, reason: reason)
      guard wasOpen else { return close }
      stashed = close
      return .send(encode(.close, Self.closePayload(code: code, reason: "")))
    }
  }

  /// An unfragmented, uncompressed message: no copy. (Its UTF-8 was validated by the
  /// decoder as the bytes arrived.)
  private func deliverWhole(isText: Bool, _ payload: [UInt8]) throws(WebSocketError) -> WebSocketAction {
    guard payload.count <= configuration.maxMessageSize else {
      throw .messageTooBig("message over the limit of \(configuration.maxMessageSize) bytes")
    }
    return isText ? .text(String(decoding: payload, as: UTF8.self)) : .binary(payload)
  }

  private mutating func continueMessage(
    _ partial: consuming PartialMessage, _ frame: WebSocketFrame
  ) throws(WebSocketError) -> WebSocketAction? {
    let limit = configuration.maxMessageSize
    if partial.isCompressed {
      // The decoder refuses RSV1 unless the extension was agreed, so the codec is there.
      guard let deflate else { throw .protocolError("RSV1 set without an extension") }
      // Inflated text is validated chunk by chunk as it comes out (uncompressed text was
      // validated by the decoder as it arrived).
      if partial.isText && configuration.validateUTF8 {
        var validator = partial.validator
        try frame.payload.withBytes { (bytes) throws(WebSocketError) in
          try deflate.codec.decompressTextFragment(
            bytes, into: &partial.bytes, limit: limit, validator: &validator)
        }
        if frame.fin {
          try deflate.codec.finishTextMessage(into: &partial.bytes, limit: limit, validator: &validator)
        }
        partial.validator = validator
      } else {
        try frame.payload.withBytes { (bytes) throws(WebSocketError) in
          try deflate.codec.decompressFragment(bytes, into: &partial.bytes, limit: limit)
        }
        if frame.fin { try deflate.codec.finishMessage(into: &partial.bytes, limit: limit) }
      }
    } else {
      let before = partial.bytes.count
      guard before + frame.payload.count <= limit else {
        throw .messageTooBig("message over the limit of \(limit) bytes")
      }
      if before == 0 {
        partial.bytes = frame.payload
      } else {
        partial.bytes.append(contentsOf: frame.payload)
      }
    }
    guard frame.fin else {
      message = partial
      return nil
    }
    return partial.isText ? .text(String(decoding: partial.bytes, as: UTF8.self)) : .binary(partial.bytes)
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
    if let deflate, let compressed = try? deflate.codec.compress(bytes) {
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

  /// Lends `body` an unmasked, uncompressed server text frame built in temporary memory (on
  /// the stack when small): for a broadcast that copies the frame once, into storage every
  /// recipient shares, with no array in between. Only valid on connections without
  /// permessage-deflate (see ``isCompressing``).
  @inlinable
  public static func withServerFrame<R>(text: String, _ body: (UnsafeRawBufferPointer) -> R) -> R {
    var text = text
    return text.withUTF8 { withServerFrame(opcode: .text, payload: UnsafeRawBufferPointer($0), body) }
  }

  /// ``withServerFrame(text:_:)`` of a text given as its UTF-8 bytes.
  @inlinable
  public static func withServerFrame<R>(textUTF8: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R) -> R {
    withServerFrame(opcode: .text, payload: textUTF8, body)
  }

  /// The most header bytes an unmasked server frame needs (a 64-bit length): the room to
  /// leave in front of a payload for ``withServerFrame(text:payloadAt:_:)``.
  public static let serverHeaderRoom = 10

  /// Lends `body` an unmasked, uncompressed server text frame made in place in `buffer`,
  /// whose bytes from `start` on are the UTF-8 payload and whose first `start` bytes (at
  /// least ``serverHeaderRoom``) are spare: the header is written just before the payload,
  /// which is not copied. Only valid on connections without permessage-deflate.
  @inlinable
  public static func withServerFrame<R>(
    text buffer: inout [UInt8], payloadAt start: Int, _ body: (UnsafeRawBufferPointer) -> R
  ) -> R {
    let count = buffer.count - start
    let header = WebSocketFrameEncoder.headerSize(payloadCount: count, masked: false)
    precondition(header <= start, "withServerFrame: no room for the header")
    return buffer.withUnsafeMutableBytes { all in
      let frame = UnsafeMutableRawBufferPointer(rebasing: all[(start - header)...])
      WebSocketFrameEncoder.writeHeader(
        into: frame, opcode: .text, payloadCount: count, fin: true, rsv1: false, maskKey: nil)
      return body(UnsafeRawBufferPointer(frame))
    }
  }

  /// The bytes of an unmasked server frame carrying `payloadCount` bytes: the storage
  /// ``withServerFrame(text:in:_:)`` writes a frame into.
  @inlinable
  public static func serverFrameCount(payloadCount: Int) -> Int {
    WebSocketFrameEncoder.headerSize(payloadCount: payloadCount, masked: false) + payloadCount
  }

  /// Writes the header of an unmasked, uncompressed server text frame carrying
  /// `payloadCount` bytes at the start of `frame` (``serverFrameCount(payloadCount:)``
  /// bytes) and lends `body` the rest, to write the payload there: a frame whose payload
  /// size is known before its first byte is made in the storage that carries it, with no
  /// copy. Only valid on connections without permessage-deflate.
  @inlinable
  public static func withServerFrame<R>(
    text payloadCount: Int, in frame: UnsafeMutableRawBufferPointer, _ body: (UnsafeMutableRawBufferPointer) -> R
  ) -> R {
    let header = WebSocketFrameEncoder.headerSize(payloadCount: payloadCount, masked: false)
    precondition(frame.count == header + payloadCount, "withServerFrame: not serverFrameCount(payloadCount:) bytes")
    WebSocketFrameEncoder.writeHeader(
      into: frame, opcode: .text, payloadCount: payloadCount, fin: true, rsv1: false, maskKey: nil)
    return body(UnsafeMutableRawBufferPointer(rebasing: frame[header...]))
  }

  /// Lends `body` an unmasked, uncompressed server binary frame built in temporary memory;
  /// see ``withServerFrame(text:_:)``.
  @inlinable
  public static func withServerFrame<R>(binary: [UInt8], _ body: (UnsafeRawBufferPointer) -> R) -> R {
    binary.withUnsafeBytes { withServerFrame(opcode: .binary, payload: $0, body) }
  }

  @inlinable
  static func withServerFrame<R>(
    opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R
  ) -> R {
    let header = WebSocketFrameEncoder.headerSize(payloadCount: payload.count, masked: false)
    return withUnsafeTemporaryAllocation(byteCount: header + payload.count, alignment: 16) { frame in
      WebSocketFrameEncoder.writeHeader(
        into: frame, opcode: opcode, payloadCount: payload.count, fin: true, rsv1: false, maskKey: nil)
      if payload.count > 0 {
        UnsafeMutableRawBufferPointer(rebasing: frame[header...]).copyMemory(from: payload)
      }
      return body(UnsafeRawBufferPointer(frame))
    }
  }
}

@available(*, unavailable)
extension WebSocketConnection: Sendable {}

/// The permessage-deflate codec of a connection, out of line (see `deflate`).
private final class DeflateBox {
  var codec: PerMessageDeflate

  init(_ codec: PerMessageDeflate) {
    self.codec = codec
  }
}
