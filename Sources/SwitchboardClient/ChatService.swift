import SwitchboardDNS
import SwitchboardDiscovery
import SwitchboardHTTP

/// A DNS-SD service instance a ``ChatClient`` connects to by name, such as
/// `Switchboard on mac._switchboard._tcp.local`: what `switchboard serve` advertises.
///
/// The type picks the transport (``scheme``): `_http._tcp` is the WebSocket JSON protocol
/// (on the TXT `ws` port and `path`), any other `._udp` type the UDP datagram dialect, any
/// other `._tcp` type (`_switchboard._tcp`) the line dialect. Only `.local` (multicast DNS) is
/// browsed.
public struct ChatService: Sendable, Hashable, CustomStringConvertible {
  /// The instance name: one DNS label of any UTF-8, 1–63 bytes (`Switchboard on mac`).
  public let instance: String
  /// The service type, `_name._tcp` or `_name._udp` (`_switchboard._tcp`).
  public let type: String
  /// The domain; always `local`.
  public let domain: String

  /// The line port's type, the default of ``ChatClient/init(service:type:name:room:configuration:)``.
  public static let lineType = ServerAdvertisement.tcpType
  /// The UDP port's type.
  public static let datagramType = ServerAdvertisement.udpType
  /// The web page's type; its TXT `ws` and `path` say where the WebSocket is.
  public static let webType = ServerAdvertisement.httpType

  /// A service instance.
  /// - Throws: ``ChatClientError/invalidURL`` for an empty or over-long instance name, a type
  ///   that is not `_name._tcp` / `_name._udp`, or a domain other than `local`.
  public init(instance: String, type: String = ChatService.lineType, domain: String = "local")
    throws(ChatClientError)
  {
    guard domain.lowercased() == "local" || domain.lowercased() == "local." else {
      throw .invalidURL("only .local services can be found (multicast DNS), not '\(domain)'")
    }
    guard !instance.isEmpty else { throw .invalidURL("empty service instance name") }
    // A type is two labels split at the `.` byte: split by Characters, a `.` followed by a
    // combining mark (`._\u{596}`) is no dot, and the type's URL form, which escapes the
    // mark, would split where the type did not (found by fuzz-url).
    var typeLabels = Self.labels(type)
    if typeLabels.count == 3, typeLabels[2].lowercased() == "local" { typeLabels.removeLast() }
    guard typeLabels.count == 2, typeLabels[0].utf8.first == UInt8(ascii: "_") else {
      throw .invalidURL("'\(type)' is not _name._tcp or _name._udp")
    }
    // DNS names ignore ASCII case; the protocol label is written the usual way.
    let type = typeLabels[0] + "." + typeLabels[1].lowercased()
    do {
      _ = try MDNSService(instance: instance, type: type, port: 0).typeName().prepending(instance)
    } catch let error as DiscoveryError {
      throw .invalidURL(error.message)
    } catch {
      throw .invalidURL("'\(instance).\(type)': \(error)")
    }
    self.instance = instance
    self.type = type
    self.domain = "local"
  }

  /// The transport and dialect the type stands for.
  public var scheme: ChatEndpoint.Scheme {
    let lower = type.lowercased()
    if lower == Self.webType { return .ws }
    return lower.hasSuffix("._udp") ? .udp : .tcp
  }

  /// `INSTANCE.TYPE.local`, as DNS-SD writes it (the instance unescaped).
  public var description: String { "\(instance).\(type).\(domain)" }

  /// Whether a browser's `found` is this instance: instance and type compare ignoring ASCII
  /// case, as DNS names do (RFC 6762 §16).
  public func matches(_ found: MDNSResolvedService) -> Bool {
    guard let mine = try? DNSName(labels: [instance, type]),
      let theirs = try? DNSName(labels: [found.instance, found.type])
    else { return false }
    return mine == theirs && found.domain.lowercased().hasPrefix("local")
  }

  /// Parses the host part of a `dnssd://` URL, `INSTANCE._name._tcp[.local]`, percent-escapes
  /// decoded. The instance may hold dots: the type is the last `_tcp`/`_udp` label and the
  /// one before it.
  /// - Throws: ``ChatClientError/invalidURL``.
  init(urlHost host: Substring) throws(ChatClientError) {
    let parts = Self.labels(host)
    guard let proto = parts.lastIndex(where: { $0.lowercased() == "_tcp" || $0.lowercased() == "_udp" }),
      proto >= 2,
      parts[proto - 1].utf8.first == UInt8(ascii: "_")
    else {
      throw .invalidURL("'\(host)' is not INSTANCE._name._tcp.local (or ._udp)")
    }
    let instance = parts[..<(proto - 1)].joined(separator: ".").removingURLPercentEncoding()
    let type = parts[(proto - 1)...proto].joined(separator: ".").removingURLPercentEncoding()
    var domainParts = parts[(proto + 1)...]
    if domainParts.last == "" { domainParts = domainParts.dropLast() }
    let domain = domainParts.isEmpty ? "local" : domainParts.joined(separator: ".")
    try self.init(instance: instance, type: type, domain: domain)
  }

  /// The host part of a `dnssd://` URL: the instance percent-encoded, then type (its labels
  /// percent-encoded too: a decoded `%2F` in a type must not become a path; found by fuzz-url)
  /// and domain.
  var urlHost: String {
    ([instance] + Self.labels(type)).map(ChatEndpoint.percentEncode).joined(separator: ".") + ".\(domain)"
  }

  /// `text` split at every `.` byte (empty labels kept). Bytes, not Characters: a `.` followed
  /// by a combining mark is one Character, and percent-encoding the mark would separate them.
  static func labels(_ text: some StringProtocol) -> [String] {
    text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).map {
      String(decoding: $0, as: UTF8.self)
    }
  }
}
