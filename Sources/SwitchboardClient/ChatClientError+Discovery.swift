import SwitchboardDiscovery

extension ChatClientError {
  /// The client's error for a discovery failure while looking for `service`, the one mapping
  /// every resolver uses: a denied Local Network permission is ``localNetworkDenied`` (the
  /// user must act; the description says how), anything else ``connectFailed``.
  static func discovery(_ error: DiscoveryError, browsing service: ChatService) -> ChatClientError {
    if error == .localNetworkDenied {
      return .localNetworkDenied("cannot browse for \(service) (\(error.message))")
    }
    return .connectFailed("cannot browse for \(service): \(error.message)")
  }
}
