import SwitchboardTLS

extension ByteStream {
  /// Whether the bytes are encrypted (the member's transport is then `tls` or `wss`).
  var isTLS: Bool {
    if case .tls = self { return true }
    return false
  }
}
