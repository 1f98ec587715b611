/// What ``HTTPRequestParser`` and ``HTTPResponseParser`` share: the buffered bytes, the
/// limits, the error that sticks once thrown, and the reset after an upgrade. Each parser
/// gives only its grammar (how one message is read from the buffer), so the buffering and
/// error rules cannot drift apart between the server's side and the client's.
struct HTTPParserCore<Grammar: HTTPMessageGrammar>: Sendable {
  let limits: HTTPLimits
  private var reader = HTTPHeadReader()
  private var grammar = Grammar()
  /// The error ``next()`` threw; every later call throws it again.
  private var failure: HTTPError?

  init(limits: HTTPLimits) {
    self.limits = limits
  }

  mutating func append(_ bytes: some Sequence<UInt8>) {
    reader.append(bytes)
  }

  mutating func next() throws(HTTPError) -> Grammar.Message? {
    if let failure { throw failure }
    do {
      return try grammar.step(&reader, limits: limits)
    } catch {
      failure = error
      throw error
    }
  }

  /// The bytes after the last message and an empty buffer; the parser starts afresh.
  mutating func takeRemainingBytes() -> [UInt8] {
    grammar = Grammar()
    failure = nil
    return reader.takeRemaining()
  }
}

/// How one HTTP message is read: a state machine over the shared buffer.
protocol HTTPMessageGrammar: Sendable {
  associatedtype Message
  /// The state before a message's first line.
  init()
  /// Reads as much of the next message as the buffer holds: the message when it is
  /// complete, `nil` when more bytes are needed.
  mutating func step(_ reader: inout HTTPHeadReader, limits: HTTPLimits) throws(HTTPError) -> Message?
}
