import SwitchboardIO
import Testing
import SwitchboardTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite(.onTestThreads)
struct SocketAddressTests {
  struct Vector: Sendable, CustomTestStringConvertible {
    var host: String
    var port: Int
    var family: Int32
    var ip: String
    var description: String
    var testDescription: String { "\"\(host)\" port \(port)" }
  }

  static let valid: [Vector] = [
    Vector(host: "127.0.0.1", port: 8080, family: AF_INET, ip: "127.0.0.1", description: "127.0.0.1:8080"),
    Vector(host: "192.168.1.20", port: 0, family: AF_INET, ip: "192.168.1.20", description: "192.168.1.20:0"),
    Vector(host: "localhost", port: 80, family: AF_INET, ip: "127.0.0.1", description: "127.0.0.1:80"),
    Vector(host: "", port: 9000, family: AF_INET, ip: "0.0.0.0", description: "0.0.0.0:9000"),
    Vector(host: "*", port: 9000, family: AF_INET, ip: "0.0.0.0", description: "0.0.0.0:9000"),
    Vector(host: "::1", port: 443, family: AF_INET6, ip: "::1", description: "[::1]:443"),
    Vector(host: "[::1]", port: 443, family: AF_INET6, ip: "::1", description: "[::1]:443"),
    Vector(host: "::", port: 1, family: AF_INET6, ip: "::", description: "[::]:1"),
    Vector(
      host: "2001:DB8:0:0:0:0:0:1", port: 65535, family: AF_INET6, ip: "2001:db8::1",
      description: "[2001:db8::1]:65535"),
    Vector(
      host: "::ffff:10.0.0.1", port: 5353, family: AF_INET6, ip: "::ffff:10.0.0.1",
      description: "[::ffff:10.0.0.1]:5353"),
  ]

  @Test(arguments: valid)
  func parsesNumericAddresses(vector: Vector) throws {
    let address = try SocketAddress(host: vector.host, port: vector.port)
    #expect(address.family == vector.family)
    #expect(address.port == vector.port)
    #expect(address.ipAddress == vector.ip)
    #expect(address.description == vector.description)
  }

  @Test(arguments: [
    "example.com", "256.0.0.1", "1.2.3", "1.2.3.4.5", "127.0.0.1:80", " 127.0.0.1", "::g", "[::1", "::1]",
    "1::2::3", "[127.0.0.1]x", "fe80::1%lo",
  ])
  func rejectsStringsThatAreNotNumericAddresses(host: String) {
    #expect(throws: IOError.self) { try SocketAddress(host: host, port: 80) }
    do throws(IOError) {
      _ = try SocketAddress(host: host, port: 80)
    } catch {
      #expect(error.call == "parse address")
      #expect(error.errno == EINVAL)
    }
  }

  @Test(arguments: [-1, 65536, 1 << 20])
  func rejectsPortsOutOfRange(port: Int) {
    #expect(throws: IOError.self) { try SocketAddress(host: "127.0.0.1", port: port) }
  }

  @Test func wildcardsAreRecognised() throws {
    #expect(try SocketAddress(host: "0.0.0.0", port: 1).isWildcard)
    #expect(try SocketAddress(host: "::", port: 1).isWildcard)
    #expect(try !SocketAddress(host: "127.0.0.1", port: 1).isWildcard)
    #expect(try !SocketAddress(host: "::1", port: 1).isWildcard)
  }

  @Test func equalAddressesAreEqualAndHashAlike() throws {
    let a = try SocketAddress(host: "127.0.0.1", port: 5000)
    let b = try SocketAddress(host: "localhost", port: 5000)
    let v6 = try SocketAddress(host: "::1", port: 5000)
    let bracketed = try SocketAddress(host: "[::1]", port: 5000)
    #expect(a == b)
    #expect(a.hashValue == b.hashValue)
    #expect(v6 == bracketed)
    #expect(a != v6)
    #expect(a != a.withPort(5001))
    #expect(a.withPort(5001) == (try SocketAddress(host: "127.0.0.1", port: 5001)))
    #expect(v6.withPort(7).description == "[::1]:7")
    let set: Set<SocketAddress> = [a, b, v6, bracketed, a.withPort(1)]
    #expect(set.count == 3)
    let table = [a: "v4", v6: "v6"]
    #expect(table[b] == "v4" && table[bracketed] == "v6")
  }

  @Test(arguments: ["127.0.0.1", "10.1.2.3", "::1", "2001:db8::42", "::ffff:192.0.2.1"])
  func survivesTheTripThroughSockaddr(host: String) throws {
    let address = try SocketAddress(host: host, port: 40_000)
    let copy = address.withSockAddr { sa, len -> SocketAddress? in
      #expect(
        Int(len)
          == (address.family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size))
      #expect(Int32(sa.pointee.sa_family) == address.family)
      return SocketAddress(sa)
    }
    #expect(copy == address)
  }

  @Test func sockaddrOfAnotherFamilyIsRejected() {
    var unix = sockaddr()
    unix.sa_family = sa_family_t(AF_UNIX)
    #expect(SocketAddress(&unix) == nil)
  }

  @Test func resolvesNumericHostsWithoutDNS() throws {
    #expect(
      try SocketAddress.resolve(host: "127.0.0.1", port: 1) == SocketAddress(host: "127.0.0.1", port: 1))
    #expect(try SocketAddress.resolve(host: "[::1]", port: 2).description == "[::1]:2")
    #expect(try SocketAddress.resolve(host: "localhost", port: 3).description == "127.0.0.1:3")
  }
}
