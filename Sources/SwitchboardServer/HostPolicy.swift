import SwitchboardIO

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Which names a request may give in its `Host` header: the guard against DNS rebinding
/// (docs/SECURITY.md, "Host names").
///
/// A page on `http://r.attacker.example:1337` whose name the attacker re-points at this
/// server's address (a LAN address, `127.0.0.1`) is, to the browser, still that site: its
/// requests go here with `Host: r.attacker.example:1337` and `Origin:
/// http://r.attacker.example:1337`, which the ``OriginPolicy`` alone takes for the server's
/// own page. So the name itself must be one the server answers to.
///
/// The rule, in order:
/// 1. No `Host` header (an HTTP/1.0 request typed into `nc`): allowed. Browsers always send one.
/// 2. `*` in ``allowed``: every host allowed (the check is off).
/// 3. An IP address (`192.168.1.20`, `[::1]`, `127.0.0.2`): allowed. Rebinding needs a name
///    the attacker controls; a request naming an address went where that address says, and
///    a browser page on an address is not another site's (this also keeps probes, NAT and
///    container port mappings that name an address working).
/// 4. A name without a dot (`switchboard`, a container's service name, an intranet host):
///    allowed. Such a name resolves through the hosts file, the search domains or the
///    container network, which the network's owner runs; no name in the public DNS has no
///    dot, so a site elsewhere cannot point one at this server.
/// 5. `localhost` and every `*.localhost` name (RFC 6761 §6.3: always loopback).
/// 6. This machine's names (``machineNames``: its host name and the host name's first
///    label), and `LABEL.local` and `LABEL-N.local` for each label (the mDNS name the server
///    advertises, and the names it takes after a conflict).
/// 7. An entry of ``allowed``: a name, or `*.example.org` for every name under it.
/// 8. Anything else: refused (the server answers `421 Misdirected Request`).
///
/// The port in the header does not matter: rebinding is about names. A pure value: no
/// sockets, no clock (``machineNames()`` reads the host name once, for the default).
public struct HostPolicy: Sendable, Equatable {
  /// The names allowed besides the built-in ones (normalised by ``normalize(_:)``): names,
  /// `*.suffix` patterns and `*`.
  public private(set) var allowed: [String]
  /// This machine's names, lower case (``machineNames()`` for the running machine).
  public private(set) var machineNames: [String]

  /// What the check says.
  public enum Verdict: Sendable, Equatable {
    /// The request may go ahead.
    case allowed
    /// Refused; the text says why (the 421 body).
    case refused(String)
  }

  /// A policy allowing the built-in names, `machineNames` and `hosts` (each a name,
  /// `*.suffix` or `*`; entries that are none of those are ignored: check them first with
  /// ``normalize(_:)``).
  public init(allowing hosts: [String] = [], machineNames: [String] = HostPolicy.machineNames()) {
    allowed = hosts.compactMap(Self.normalize)
    self.machineNames = machineNames.compactMap(Self.normalize).filter { !$0.hasPrefix("*") }
  }

  /// The running machine's names: its host name and the host name's first label (none when
  /// the host name cannot be read).
  public static func machineNames() -> [String] {
    guard let name = System.hostName() else { return [] }
    let label = name.split(separator: ".").first.map(String.init) ?? name
    return label == name ? [name] : [name, label]
  }

  /// An entry as compared: `*`, `*.suffix` or a name, in lower case without a trailing dot;
  /// `nil` when `text` is none of those (empty, a port, a path, characters no host name has).
  public static func normalize(_ text: String) -> String? {
    let t = text.lowercased()
    if t == "*" { return t }
    if t.hasPrefix("*.") {
      guard let suffix = name(String(t.dropFirst(2))) else { return nil }
      return "*." + suffix
    }
    if isAddressLiteral(t) { return t }
    return name(t)
  }

  /// Checks a request whose `Host` header is `host` (`nil`: none).
  public func check(host: String?) -> Verdict {
    guard let host else { return .allowed }
    if allowed.contains("*") { return .allowed }
    let shown = String(host.prefix(200))
    guard let name = Self.hostPart(host.lowercased()) else {
      return .refused("host \(shown) is not a valid host")
    }
    if Self.isAddressLiteral(name) || !name.contains(".") || name == "localhost"
      || name.hasSuffix(".localhost")
    {
      return .allowed
    }
    if machineNames.contains(name) || isMachineLocalName(name) { return .allowed }
    for entry in allowed {
      if entry.hasPrefix("*.") {
        if name.hasSuffix(entry.dropFirst()) { return .allowed }
      } else if entry == name {
        return .allowed
      }
    }
    return .refused(
      "host \(shown) is not served here (this server answers to its own names and addresses, "
        + "localhost, names without a dot and --allow-host)")
  }

  /// `LABEL.local` or `LABEL-N.local` for a first label of ``machineNames``.
  private func isMachineLocalName(_ name: String) -> Bool {
    guard name.hasSuffix(".local") else { return false }
    let label = name.dropLast(".local".count)
    guard !label.isEmpty, !label.contains(".") else { return false }
    for machine in machineNames where !machine.contains(".") {
      if label == machine { return true }
      if label.hasPrefix(machine + "-") {
        let number = label.dropFirst(machine.count + 1)
        if !number.isEmpty, number.allSatisfy(\.isASCII), number.allSatisfy(\.isNumber) { return true }
      }
    }
    return false
  }

  /// The host of a `Host` header value (`name[:port]`, `[v6][:port]`), lower case, without
  /// a trailing dot; a bracketed address keeps its brackets. `nil` when it is malformed.
  private static func hostPart(_ text: String) -> String? {
    var host = Substring(text)
    var port: Substring? = nil
    if text.hasPrefix("[") {
      guard let close = text.firstIndex(of: "]") else { return nil }
      host = text[...close]
      let after = text[text.index(after: close)...]
      if !after.isEmpty {
        guard after.first == ":" else { return nil }
        port = after.dropFirst()
      }
      if let port, !isPort(port) { return nil }
      return isAddressLiteral(String(host)) ? String(host) : nil
    }
    if let colon = text.lastIndex(of: ":") {
      host = text[..<colon]
      port = text[text.index(after: colon)...]
    }
    if let port, !isPort(port) { return nil }
    let h = String(host)
    return isAddressLiteral(h) ? h : name(h)
  }

  private static func isPort(_ text: Substring) -> Bool {
    !text.isEmpty && text.count <= 5 && text.allSatisfy { $0.isASCII && $0.isNumber }
  }

  /// A DNS name as compared (letters, digits, `-`, `_`, `.`; no empty label), without a
  /// trailing dot; `nil` otherwise.
  private static func name(_ text: String) -> String? {
    var t = Substring(text)
    if t.hasSuffix(".") { t = t.dropLast() }
    guard !t.isEmpty, t.count <= 253,
      t.utf8.allSatisfy({
        ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x5F || $0 == 0x2E
      }),
      !t.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty)
    else { return nil }
    return String(t)
  }

  /// Whether `text` is an IPv4 address in dotted-decimal form (what a browser sends for any
  /// numeric IPv4 host) or a bracketed IPv6 address (a zone after `%` allowed).
  static func isAddressLiteral(_ text: String) -> Bool {
    if text.hasPrefix("[") {
      guard text.hasSuffix("]"), text.count > 2 else { return false }
      var inner = String(text.dropFirst().dropLast())
      if let percent = inner.firstIndex(of: "%") { inner = String(inner[..<percent]) }
      var storage = in6_addr()
      return inet_pton(AF_INET6, inner, &storage) == 1
    }
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    return parts.count == 4
      && parts.allSatisfy { part in
        !part.isEmpty && part.count <= 3 && part.allSatisfy { $0.isASCII && $0.isNumber } && (Int(part).map { $0 <= 255 } ?? false)
      }
  }
}
