import SwitchboardDNS

/// What a running Switchboard server publishes over DNS-SD: one service per listener that is
/// on, all under one instance name, each with the same TXT attributes (docs/DISCOVERY.md,
/// "What serve advertises").
///
/// | service | port | TXT |
/// |---|---|---|
/// | `_switchboard._tcp` | the TCP line port | `version`, `room`, `ws`, `path=/` |
/// | `_switchboard._udp` | the UDP port | the same |
/// | `_http._tcp` | the HTTP + WebSocket port | the same (`path=/` is the web page) |
///
/// `version` is ``protocolVersion``, `room` the room new members land in, `ws` the
/// HTTP + WebSocket port and `path` the path on that port (`/`: the web page, and the JSON
/// WebSocket of the default room). Without an HTTP listener there is no `_http._tcp`, and
/// the other two carry no `ws` and no `path`. A pure value: ``services`` builds the list.
///
/// ```swift
/// let ad = ServerAdvertisement(instance: "Switchboard on vm", room: "lobby",
///                              tcpPort: 8080, udpPort: 8081, httpPort: 1337)
/// for service in ad.services { _ = try advertiser.register(service) }
/// ```
public struct ServerAdvertisement: Sendable, Hashable {
  /// The TCP line chat service type.
  public static let tcpType = "_switchboard._tcp"
  /// The UDP datagram chat service type.
  public static let udpType = "_switchboard._udp"
  /// The web page's service type (what browsers' "Bonjour" lists show).
  public static let httpType = "_http._tcp"
  /// The wire protocol version in TXT `version`: the dialects of docs/PROTOCOLS.md (lines,
  /// datagrams, the WebSocket JSON frames). Not the release number: it changes only when a
  /// change would break a client written against the previous one.
  public static let protocolVersion = 1
  /// The HTTP path advertised in TXT `path`: the web page, and on a WebSocket upgrade the
  /// JSON protocol in the default room.
  public static let path = "/"

  /// The instance name every service is published under (one DNS label, 1–63 bytes).
  public var instance: String
  /// The room new members land in (TXT `room`).
  public var room: String
  /// The TCP line port, `nil` when that listener is off.
  public var tcpPort: UInt16?
  /// The UDP port, `nil` when that listener is off.
  public var udpPort: UInt16?
  /// The HTTP + WebSocket port, `nil` when that listener is off.
  public var httpPort: UInt16?

  /// An advertisement for the listeners given (`nil`: off).
  public init(instance: String, room: String, tcpPort: UInt16?, udpPort: UInt16?, httpPort: UInt16?) {
    self.instance = instance
    self.room = room
    self.tcpPort = tcpPort
    self.udpPort = udpPort
    self.httpPort = httpPort
  }

  /// The longest instance name DNS allows, in UTF-8 bytes (one label).
  public static let maxInstanceLength = 63

  /// `Switchboard on HOST`, cut to ``maxInstanceLength`` bytes at a character boundary.
  public static func defaultInstance(hostName: String) -> String {
    var name = "Switchboard on \(hostName)"
    while name.utf8.count > maxInstanceLength { name.removeLast() }
    return name
  }

  /// The TXT attributes every service carries: `version`, `room`, and with an HTTP listener
  /// `ws` and `path`.
  public var txt: DNSTXT {
    var strings = ["version=\(Self.protocolVersion)", "room=\(room)"]
    if let httpPort { strings += ["ws=\(httpPort)", "path=\(Self.path)"] }
    // Room names are 1-64 letters, digits, `-`, `_`, `.` and the rest are numbers, so every
    // entry is a valid `key=value` well under 255 bytes.
    return (try? DNSTXT(strings: strings)) ?? .empty
  }

  /// One service per listener that is on, in the order TCP, UDP, HTTP.
  public var services: [MDNSService] {
    let txt = self.txt
    let listeners: [(String, UInt16?)] = [
      (Self.tcpType, tcpPort), (Self.udpType, udpPort), (Self.httpType, httpPort),
    ]
    return listeners.compactMap { type, port in
      port.map { MDNSService(instance: instance, type: type, port: $0, txt: txt) }
    }
  }
}
