extension TLSSession {
  /// Progress of the handshake.
  public enum HandshakeStatus: Sendable, Equatable {
    /// The handshake is complete and verified (chain, name and pins): data may flow.
    case done
    /// More bytes from the peer are needed; send what ``TLSSession/takeCiphertext()`` has.
    case wantIO
    /// The handshake failed; send what ``TLSSession/takeCiphertext()`` has (an alert for
    /// the peer) and close.
    case failed(TLSError)
  }
}

@available(*, unavailable)
extension TLSSession: Sendable {}
