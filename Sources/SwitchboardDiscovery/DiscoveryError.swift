/// An error from service discovery: a service that cannot be described in DNS, a name that
/// could not be kept, a socket that could not be opened.
///
/// Open-enum style like `DNSError`: compare with the static members (`error == .nameConflict`
/// compares the kind only) so kinds can be added later; ``message`` says what happened.
public struct DiscoveryError: Error, Sendable, Hashable, CustomStringConvertible {
  private enum Code: Sendable, Hashable {
    case invalidServiceType
    case invalidInstanceName
    case invalidHostName
    case invalidTXT
    case nameConflict
    case unknownService
    case socket
    case stopped
    case systemUnavailable
    case unsupported
    case localNetworkDenied
  }

  private let code: Code
  /// What happened, for people.
  public let message: String

  private init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  /// The same kind with another message.
  func with(_ message: String) -> DiscoveryError { DiscoveryError(code, message) }

  /// `DiscoveryError: <message>`.
  public var description: String { "DiscoveryError: \(message)" }

  /// A service type that is not `_name._tcp` or `_name._udp` (name 1–63 bytes).
  public static let invalidServiceType = DiscoveryError(.invalidServiceType, "invalid service type")
  /// An instance name that is empty or longer than 63 bytes, or too long with its type.
  public static let invalidInstanceName = DiscoveryError(.invalidInstanceName, "invalid instance name")
  /// A host name that is empty or not one DNS label.
  public static let invalidHostName = DiscoveryError(.invalidHostName, "invalid host name")
  /// A TXT record too big to fit in one mDNS packet (RFC 6762 §17: 9000 bytes with headers).
  public static let invalidTXT = DiscoveryError(.invalidTXT, "invalid TXT record")
  /// A name was taken by another responder more often than the rename limit allows
  /// (``MDNSResponderConfiguration/maxRenames``): the service is not published.
  public static let nameConflict = DiscoveryError(.nameConflict, "name conflict")
  /// No service is registered under this id.
  public static let unknownService = DiscoveryError(.unknownService, "unknown service")
  /// The multicast socket could not be opened or joined to its group.
  public static let socket = DiscoveryError(.socket, "multicast socket")
  /// The responder was shut down.
  public static let stopped = DiscoveryError(.stopped, "responder stopped")
  /// The system's DNS-SD daemon (mDNSResponder, avahi-daemon) does not answer, or its
  /// library is not installed.
  public static let systemUnavailable = DiscoveryError(.systemUnavailable, "system DNS-SD unavailable")
  /// The backend asked for does not run on this platform (the built-in responder on macOS and
  /// iOS, where port 5353 is mDNSResponder's): the message names the platform and the way out.
  public static let unsupported = DiscoveryError(.unsupported, "not available on this platform")
  /// The system refused this program access to the local network (`kDNSServiceErr_PolicyDenied`,
  /// -65570: Local Network privacy on iOS and macOS 15 or later). The user denied it, or the
  /// app's Info.plist lacks `NSLocalNetworkUsageDescription` or does not list the service type
  /// in `NSBonjourServices`; Settings ▸ Privacy & Security ▸ Local Network turns it back on.
  /// Not the same as ``systemUnavailable``: retrying does not help until the user acts.
  public static let localNetworkDenied = DiscoveryError(.localNetworkDenied, "local network access denied")

  /// Kinds are equal; the message is not compared.
  public static func == (lhs: DiscoveryError, rhs: DiscoveryError) -> Bool { lhs.code == rhs.code }
  /// Hashes the kind only, consistent with `==`.
  public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
