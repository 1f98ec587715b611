import Synchronization

/// A byte stream to the server, as ``StreamLineConnection`` drives it: the platform's part
/// of a `tcp://`/`tls://` transport (Network.framework's `NWConnection`).
protocol StreamLink: Sendable {
  /// Writes `bytes` in call order; returns `false` when the connection cannot (it closed).
  func write(_ bytes: [UInt8]) async -> Bool
  /// Closes the connection; ``StreamLineConnection/ended(_:)`` follows.
  func close()
}

/// The line dialect over any ``StreamLink``: a unit goes out with `\n`; bytes received go
/// through the shared ``LineReader`` and arrive as lines; the end of the stream delivers an
/// unterminated rest, then `.closed` once.
///
/// The platform's connection only writes, closes, and reports what it read
/// (``received(_:)``) and that it ended (``ended(_:)``).
final class StreamLineConnection<Link: StreamLink>: ChatTransportConnection {
  let inputs: AsyncStream<ChatTransportInput>
  var headers: [ChatClient.Header] { [] }
  private let output: AsyncStream<ChatTransportInput>.Continuation
  private let link: Link
  /// The reader, until the stream ends (`nil` after).
  private let reader = Mutex<LineReader?>(LineReader())

  /// A connection over `link`; report its reads and its end from here on.
  init(link: Link) {
    self.link = link
    (inputs, output) = AsyncStream.makeStream(of: ChatTransportInput.self)
  }

  deinit { link.close() }

  /// Bytes read from the stream.
  func received(_ bytes: some Sequence<UInt8>) {
    let output = self.output
    reader.withLock { reader in reader?.read(contentsOf: bytes) { output.yield(.text($0)) } }
  }

  /// The stream ended (closed by either side, or failed): `reason` is for people.
  func ended(_ reason: String) {
    let rest = reader.withLock { reader -> String?? in
      guard var open = reader else { return nil }
      reader = nil
      return .some(open.finish())
    }
    guard let rest else { return }
    if let line = rest { output.yield(.text(line)) }
    output.yield(.closed(code: nil, reason: reason))
    output.finish()
  }

  /// Sends the hello, in order, before the connection is handed to the client.
  func sendHello(_ hello: [String]) async throws(ChatClientError) {
    for line in hello { try await send(line) }
  }

  func send(_ text: String) async throws(ChatClientError) {
    guard await link.write(Array((text + "\n").utf8)) else { throw .closed("connection closed") }
  }

  /// `/rooms`: every line-dialect server answers it, and it changes nothing.
  func probe() async {
    try? await send("/rooms")
  }

  func close() {
    link.close()
  }
}
