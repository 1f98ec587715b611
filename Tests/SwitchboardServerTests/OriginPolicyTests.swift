import Foundation
import SwitchboardHTTP
import SwitchboardIO
import SwitchboardServer
import SwitchboardTestSupport
import Testing

/// The Origin check on browser upgrades: the pure rule, then over a real socket.
@Suite(.onTestThreads)
struct OriginPolicyTests {
  @Test func theDefaultAllowsTheServersOwnPagesAndClientsWithoutAnOrigin() {
    let policy = OriginPolicy()
    #expect(policy.check(origin: nil, host: "chat.example:1337") == .allowed)
    #expect(policy.check(origin: "http://chat.example:1337", host: "chat.example:1337") == .allowed)
    #expect(policy.check(origin: "HTTP://Chat.Example:1337", host: "chat.example:1337") == .allowed)
    #expect(policy.check(origin: "https://chat.example", host: "chat.example") == .allowed)
    #expect(policy.check(origin: "http://[::1]:1337", host: "[::1]:1337") == .allowed)
    #expect(policy.check(origin: "http://chat.example:1338", host: "chat.example:1337") != .allowed)
    #expect(policy.check(origin: "https://evil.example", host: "chat.example:1337") != .allowed)
    #expect(policy.check(origin: "null", host: "chat.example:1337") == .refused("origin null is not allowed"))
    #expect(policy.check(origin: "not an origin", host: "chat.example:1337") != .allowed)
  }

  @Test func allowedOriginsStarAndNullAreExplicit() {
    let policy = OriginPolicy(allowing: ["https://app.example", "http://localhost:3000"])
    #expect(policy.check(origin: "https://app.example:443", host: "chat.example") == .allowed)
    #expect(policy.check(origin: "http://localhost:3000", host: "chat.example") == .allowed)
    #expect(policy.check(origin: "http://app.example", host: "chat.example") != .allowed)
    #expect(policy.check(origin: "null", host: "chat.example") != .allowed)
    let star = OriginPolicy(allowing: ["*"])
    #expect(star.check(origin: "https://anything.example", host: "chat.example") == .allowed)
    #expect(star.check(origin: "null", host: "chat.example") != .allowed)
    #expect(OriginPolicy(allowing: ["null"]).check(origin: "null", host: nil) == .allowed)
    #expect(OriginPolicy.normalize("https://app.example/path") == nil)
    #expect(OriginPolicy.normalize("ftp://app.example") == nil)
    #expect(OriginPolicy.normalize("https://App.Example") == "https://app.example:443")
  }

  /// The status of a raw upgrade request carrying `origin` (none when `nil`).
  private func upgradeStatus(_ address: SocketAddress, origin: String?, host: String? = nil) throws -> (Int, String) {
    try rawRequestStatus(address, host: host ?? "127.0.0.1:\(address.port)", origin: origin, upgrade: true)
  }

  @Test func browserUpgradesAreCheckedAgainstThePolicy() async throws {
    try await withServer({ $0.originPolicy = OriginPolicy(allowing: ["https://app.example"]) }) { server in
      let address = server.httpAddress!
      #expect(try upgradeStatus(address, origin: nil).0 == 101)
      // The served page: its origin is the server's own address.
      #expect(try upgradeStatus(address, origin: "http://127.0.0.1:\(address.port)").0 == 101)
      #expect(try upgradeStatus(address, origin: "https://app.example").0 == 101)
      let (status, body) = try upgradeStatus(address, origin: "https://evil.example")
      #expect(status == 403)
      #expect(body.contains("origin https://evil.example is not allowed"))
      #expect(try upgradeStatus(address, origin: "null").0 == 403)
    }
  }
}
