import SwitchboardIO

/// Whether a query's source is on the link it came in on, which decides whether the
/// responder answers it at all (RFC 6762 §5.5: a responder checks that the source of a
/// unicast query is on the local subnet and silently ignores it otherwise; §11: answers
/// are for the local link only).
///
/// On-link means: an IPv4 or IPv6 link-local source (169.254.0.0/16, fe80::/10: such a
/// packet cannot have crossed a router), or a source inside one of the receiving interface's
/// subnets (``MDNSInterface/subnets``). Everything else is off-link, and so is any source
/// when the interface's subnets are unknown and the source is not link-local.
public enum MDNSSourceVerdict: Sendable, Hashable {
  /// Answer it (subject to the per-source rate limit for legacy unicast).
  case onLink
  /// Ignore it and count it (``MDNSResponderStatistics/offLinkQueriesIgnored``).
  case offLink

  /// The verdict for a packet from `source` received on `interface`.
  public static func of(_ source: SocketAddress, on interface: MDNSInterface) -> MDNSSourceVerdict {
    let bytes = source.addressBytes
    if isLinkLocal(bytes) { return .onLink }
    return interface.subnets.contains { $0.contains(bytes) } ? .onLink : .offLink
  }

  /// 169.254.0.0/16 (RFC 3927) or fe80::/10 (RFC 4291).
  static func isLinkLocal(_ bytes: [UInt8]) -> Bool {
    switch bytes.count {
    case 4: bytes[0] == 169 && bytes[1] == 254
    case 16: bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80
    default: false
    }
  }
}
