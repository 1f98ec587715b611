import SwitchboardDNS
import SwitchboardDiscovery
import SwitchboardTestSupport
import Testing

/// What `switchboard serve` publishes, built from its listeners without a socket.
@Suite(.onTestThreads) struct ServerAdvertisementTests {
  static func txt(_ service: MDNSService) -> [String] { service.txt.entries.map(\.description) }

  @Test func everyListenerOnGivesThreeServicesWithTheSameTXT() throws {
    let ad = ServerAdvertisement(
      instance: "SB Serve", room: "lobby", tcpPort: 8080, udpPort: 8081, httpPort: 1337)
    let services = ad.services
    #expect(services.map(\.type) == ["_switchboard._tcp", "_switchboard._udp", "_http._tcp"])
    #expect(services.map(\.port) == [8080, 8081, 1337])
    #expect(services.allSatisfy { $0.instance == "SB Serve" })
    for service in services {
      #expect(Self.txt(service) == ["version=1", "room=lobby", "ws=1337", "path=/"])
      #expect(service.txt.entry(forKey: "path")?.valueString == "/")
      _ = try service.typeName()
    }
  }

  @Test func aListenerTurnedOffIsNotAdvertised() {
    let noUDP = ServerAdvertisement(instance: "x", room: "dev", tcpPort: 9000, udpPort: nil, httpPort: 9002)
      .services
    #expect(noUDP.map(\.type) == ["_switchboard._tcp", "_http._tcp"])
    #expect(noUDP.allSatisfy { Self.txt($0) == ["version=1", "room=dev", "ws=9002", "path=/"] })
    let none = ServerAdvertisement(instance: "x", room: "dev", tcpPort: nil, udpPort: nil, httpPort: nil)
    #expect(none.services.isEmpty)
  }

  @Test func withoutHTTPThereIsNoWebSocketPortAndNoPath() {
    let services = ServerAdvertisement(instance: "x", room: "lobby", tcpPort: 1, udpPort: 2, httpPort: nil)
      .services
    #expect(services.map(\.type) == ["_switchboard._tcp", "_switchboard._udp"])
    #expect(services.allSatisfy { Self.txt($0) == ["version=1", "room=lobby"] })
  }

  @Test func theDefaultInstanceNamesTheHostAndFitsOneLabel() throws {
    #expect(ServerAdvertisement.defaultInstance(hostName: "vm") == "Switchboard on vm")
    let long = ServerAdvertisement.defaultInstance(hostName: String(repeating: "é", count: 40))
    #expect(long.utf8.count <= 63)
    #expect(long.hasPrefix("Switchboard on éé"))
    #expect(long.unicodeScalars.allSatisfy { $0 != "\u{FFFD}" })
    _ = try DNSName(labels: [long, "_switchboard", "_tcp", "local"])
  }
}
