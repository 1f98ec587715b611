/// What an ``MDNSAdvertiser`` reports about its names.
public enum MDNSEvent: Sendable, Hashable {
  /// The service is announced under `name`.
  case registered(MDNSServiceID, name: String)
  /// The service (or the host, when `nil`) was renamed after a conflict.
  case renamed(MDNSServiceID?, from: String, to: String)
  /// The service (or the host) could not keep a name and was withdrawn.
  case failed(MDNSServiceID?, DiscoveryError)
  /// Something worth a log line (a long service name).
  case warning(String)
}
