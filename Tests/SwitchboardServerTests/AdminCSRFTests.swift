import Foundation
import SwitchboardIO
import SwitchboardTestSupport
import Testing

/// The admin console's actions refuse a request a page elsewhere could make
/// (docs/SECURITY.md, "The admin console"): without the session's CSRF token, with a
/// wrong one, or from a foreign `Origin`, a publish is 403 `csrf` and nothing is published.
@Suite(.onTestThreads, .enabled(ifAvailable: Executables.switchboard != nil, "needs the switchboard binary"))
struct AdminCSRFTests {
  @Test func aCrossSitePostIsRefusedAndPublishesNothing() throws {
    let server = try ServeProcess.start(["--ephemeral", "--admin-password", AdminLoginTests.password])
    defer { server.stop() }
    let member = try LineClient(SocketAddress(host: "127.0.0.1", port: server.tcp))
    try member.join(as: "nc")
    let admin = AdminTestClient(port: server.http)
    #expect(try admin.login(AdminLoginTests.password).status == 200)
    let body = #"{"room":"lobby","text":"from the console"}"#
    let own = "http://127.0.0.1:\(server.http)"
    let refused = [
      try admin.request("POST", "/admin/api/publish", body: body, csrf: false),
      try admin.request(
        "POST", "/admin/api/publish", body: body, headers: [("X-CSRF-Token", "0" + admin.csrf!.dropFirst())],
        csrf: false),
      try admin.request(
        "POST", "/admin/api/publish", body: body, headers: [("Origin", "http://evil.example")]),
      try admin.request(
        "POST", "/admin/api/publish", body: body, headers: [("Origin", "https://127.0.0.1:\(server.http)")]),
      try admin.request(
        "POST", "/admin/api/publish", body: body, headers: [("Origin", "http://127.0.0.1:1")]),
    ]
    for answer in refused {
      #expect(answer.status == 403, "\(answer.body)")
      #expect(answer.errorCode == "csrf")
    }
    #expect(member.expectSilence(for: .milliseconds(300)).isEmpty)
    // The same request from the console's own page goes through: the refusals were the check's.
    let allowed = try admin.request("POST", "/admin/api/publish", body: body, headers: [("Origin", own)])
    #expect(allowed.status == 200, "\(allowed.body)")
    try member.expectLine("app: from the console")
  }

  /// A GET needs no token: the API's queries answer with the cookie alone, and without any
  /// API key configured.
  @Test func queriesNeedOnlyTheCookie() throws {
    let server = try ServeProcess.start(["--ephemeral", "--admin-password", AdminLoginTests.password])
    defer { server.stop() }
    let admin = AdminTestClient(port: server.http)
    try admin.login(AdminLoginTests.password)
    let info = try admin.request("GET", "/admin/api/info", csrf: false)
    #expect(info.status == 200, "\(info.body)")
    #expect(info.json["version"]?.stringValue?.isEmpty == false)
    // The API itself stays off without --api-key.
    #expect(try admin.request("GET", "/api/info").errorCode == "api_disabled")
  }
}
