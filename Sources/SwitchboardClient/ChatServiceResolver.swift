import SwitchboardDiscovery

/// Finds where a DNS-SD service runs, for a ``ChatClient`` whose endpoint is a
/// ``ChatService``. The client asks before its first connect and again before every
/// reconnect, so a server that came back on another port or address is found there.
///
/// ``DNSSDResolver`` browses with multicast DNS (or the system's DNS-SD daemon); tests and
/// apps with their own discovery can supply another.
public protocol ChatServiceResolver: Sendable {
  /// Where `service` runs now.
  /// - Throws: ``ChatClientError/serviceNotFound`` when nothing answers in time;
  ///   ``ChatClientError/connectFailed`` when it cannot browse at all.
  func resolve(_ service: ChatService) async throws(ChatClientError) -> MDNSResolvedService
}
