import SwitchboardIO

/// The errors of a failed connect as people read them: what could not be reached and why, in
/// words (`cannot connect to 127.0.0.1:1337: connection refused`), never a type's name; a
/// refusal (``ChatRefusal``) when the answer says retrying cannot help.
extension ChatClientError {
  /// A system error from connecting: `cannot connect to ADDRESS: REASON` when it is the
  /// connect itself that failed, else the error's own description.
  static func cannotConnect(_ error: IOError) -> ChatClientError {
    .connectFailed(connectFailure(error))
  }

  /// `cannot connect to ADDRESS: connection refused` for a failed `connect`; the error's own
  /// description for anything else.
  static func connectFailure(_ error: IOError) -> String {
    guard error.call == "connect", !error.detail.isEmpty else { return error.description }
    let why: String
    switch error.kind {
    case .refused, .reset, .timedOut: why = error.kind.description
    default:
      // The system's words (`No route to host`), after the call's name.
      let text = error.description
      why = text.range(of: "failed: ").map { String(text[$0.upperBound...]).lowercased() } ?? text
    }
    return "cannot connect to \(error.detail): \(why)"
  }

  /// A ``WebSocketClient`` connect failure as the chat client reports it: a refused upgrade
  /// that retrying cannot fix becomes ``refused`` (with the server's body as the reason), a
  /// response that is no HTTP gets a hint that the port is another dialect's.
  static func webSocketConnect(_ error: WebSocketClientError) -> ChatClientError {
    if error == .timeout { return .timeout(error.message) }
    if error == .invalidURL { return .invalidURL(error.message) }
    if error == .unsupportedScheme { return .unsupportedScheme(error.message) }
    if error == .connectFailed, let io = error.ioError { return .cannotConnect(io) }
    if error == .handshakeRejected, let status = error.status {
      if let refusal = ChatRefusal.upgrade(status: status, body: error.body) { return .refused(refusal) }
      return .connectFailed(error.body.isEmpty ? error.message : "server answered \(status): \(error.body)")
    }
    if error == .handshakeInvalid && error.message.hasPrefix("malformed HTTP response") {
      return .refused(
        ChatRefusal(
          kind: .request,
          reason:
            "the server did not answer in HTTP: this looks like a line port; try tcp:// (or tls://) instead of ws://"
        ))
    }
    if error == .tlsFailed { return .connectFailed(withTLSHint(error.message)) }
    return .connectFailed(error.message)
  }

  /// A TLS failure's text, with a hint when the peer answered in plaintext (OpenSSL's `wrong
  /// version number`: the URL names a plaintext port, so `wss://`/`tls://` should be
  /// `ws://`/`tcp://`).
  static func withTLSHint(_ text: String) -> String {
    guard text.contains("wrong version number") else { return text }
    return text + "; this port does not speak TLS: try ws:// (or tcp://) instead"
  }
}
