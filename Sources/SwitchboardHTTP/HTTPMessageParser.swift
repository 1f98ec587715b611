/// An incremental parser of HTTP/1.x messages: a value type that eats bytes and produces
/// messages, with no I/O. ``HTTPRequestParser`` (a server reading requests) and
/// ``HTTPResponseParser`` (a client reading response heads) are this parser with a grammar
/// each, so the buffering, the limits and the error rules are one for both sides.
///
/// - After an error the parser stays failed: every later ``next()`` throws the same error.
/// - Results do not depend on how the bytes were split across ``append(_:)-(Sequence<UInt8>)``
///   calls.
public struct HTTPMessageParser<Message>: Sendable {
  /// The limits this parser enforces.
  public let limits: HTTPLimits
  private var reader = HTTPHeadReader()
  private var grammar: any HTTPMessageGrammar<Message>
  /// The error ``next()`` threw; every later call throws it again.
  private var failure: HTTPError?

  init(limits: HTTPLimits, grammar: any HTTPMessageGrammar<Message>) {
    self.limits = limits
    self.grammar = grammar
  }

  /// Buffers bytes received from the peer.
  public mutating func append(_ bytes: some Sequence<UInt8>) {
    reader.append(bytes)
  }

  /// Buffers bytes received from the peer (copied; the pointer is not retained).
  public mutating func append(_ bytes: UnsafeRawBufferPointer) {
    reader.append(bytes)
  }

  /// Parses the next complete message from the buffer.
  /// - Returns: the message, or `nil` when more bytes are needed.
  /// - Throws: ``HTTPError`` when the input is malformed or over a limit (its
  ///   ``HTTPError/status`` is the status code a server answers with); the parser then stays
  ///   failed.
  public mutating func next() throws(HTTPError) -> Message? {
    if let failure { throw failure }
    do {
      return try grammar.step(&reader, limits: limits)
    } catch {
      failure = error
      throw error
    }
  }

  /// Returns the bytes after the last message ``next()`` returned (including any part of a
  /// message not yet complete) and empties the buffer. Used after a WebSocket upgrade: these
  /// bytes are the first WebSocket frames. The parser is ready for a new message afterwards.
  public mutating func takeRemainingBytes() -> [UInt8] {
    grammar.reset()
    failure = nil
    return reader.takeRemaining()
  }
}

/// How one HTTP message is read: a state machine over the parser's buffer.
protocol HTTPMessageGrammar<Message>: Sendable {
  associatedtype Message
  /// Reads as much of the next message as the buffer holds: the message when it is
  /// complete, `nil` when more bytes are needed.
  mutating func step(_ reader: inout HTTPHeadReader, limits: HTTPLimits) throws(HTTPError) -> Message?
  /// Back to the state before a message's first line.
  mutating func reset()
}
