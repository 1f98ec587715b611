import SwitchboardWire

/// A room event in the JSON protocol: the wire's frames for messages, presence, shutdown
/// and a new epoch, chosen by the hub's event.
extension JSONDialect {
  /// The frame text for `event`, or `nil` when the JSON protocol does not show it.
  public static func encode(_ event: ChatEvent) -> String? {
    encodedBytes(event).map { String(decoding: $0, as: UTF8.self) }
  }

  /// The frame for `event` as UTF-8 bytes, or `nil` when the JSON protocol does not show
  /// it: the same bytes as ``encode(_:)``, without building a `String`, after `headerRoom`
  /// zero bytes (see ``JSONDialect/encodedBytes(_:headerRoom:)``).
  public static func encodedBytes(_ event: ChatEvent, headerRoom: Int = 0) -> [UInt8]? {
    switch event {
    case .message(let m, _):
      return encodedBytes(m, headerRoom: headerRoom)
    case .presence(let p, _):
      return encodedBytes(p, headerRoom: headerRoom)
    case .binary:
      return nil
    case .typing(let t, _):
      return [UInt8](repeating: 0, count: headerRoom) + Array(typing(t).utf8)
    case .shutdown(let reason):
      return [UInt8](repeating: 0, count: headerRoom) + Array(goingAway(reason: reason).utf8)
    case .epochChanged(_, let epoch):
      // An empty history of the new epoch: the client starts its ids over.
      return [UInt8](repeating: 0, count: headerRoom)
        + Array(history([], epoch: epoch, recovered: false).utf8)
    }
  }

  /// ``plainMessageFrameSize(_:)`` of the message at `index` of a batch, read where it lies
  /// (``plainMessageFrameSize(at:)``).
  package static func plainMessageFrameSize(_ messages: UnsafeBufferPointer<BatchedMessage>, at index: Int)
    -> PlainFrameSize
  {
    plainMessageFrameSize(at: BatchedMessage.message(in: messages, at: index))
  }

  /// ``writePlainMessageFrame(_:size:into:)`` of the message at `index` of a batch, read
  /// where it lies (``writePlainMessageFrame(at:size:into:)``).
  package static func writePlainMessageFrame(
    _ messages: UnsafeBufferPointer<BatchedMessage>, at index: Int, size: PlainFrameSize,
    into out: UnsafeMutableRawBufferPointer
  ) -> Bool {
    writePlainMessageFrame(at: BatchedMessage.message(in: messages, at: index), size: size, into: out)
  }
}
