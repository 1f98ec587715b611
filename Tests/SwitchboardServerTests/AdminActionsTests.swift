import Foundation
import SwitchboardIO
import SwitchboardTestSupport
import Testing

/// The admin console's actions are the server API's, with its answers, logged with the
/// admin's address (docs/OPERATIONS.md, "The admin console").
@Suite(.onTestThreads, .enabled(ifAvailable: Executables.switchboard != nil, "needs the switchboard binary"))
struct AdminActionsTests {
  @Test func publishReachesALineMemberAndDisconnectClosesOne() throws {
    let server = try ServeProcess.start(["--ephemeral", "--admin-password", AdminLoginTests.password])
    defer { server.stop() }
    let address = try SocketAddress(host: "127.0.0.1", port: server.tcp)
    let reader = try LineClient(address)
    try reader.join(as: "reader")
    let victim = try LineClient(address)
    try victim.join(as: "victim")
    let admin = AdminTestClient(port: server.http)
    try admin.login(AdminLoginTests.password)

    let published = try admin.request(
      "POST", "/admin/api/publish", body: #"{"room":"lobby","text":"maintenance at 5","author":"ops"}"#)
    #expect(published.status == 200, "\(published.body)")
    #expect(published.json["id"]?.numberValue != nil)
    try reader.expectLine("ops: maintenance at 5")

    let closed = try admin.request(
      "POST", "/admin/api/disconnect", body: #"{"user":"victim","room":"lobby","reason":"spam"}"#)
    #expect(closed.status == 200, "\(closed.body)")
    #expect(closed.json["closed"]?.numberValue == 1)
    try victim.expectLine("* disconnected by the server: spam")
    try victim.expectClosed()

    let bad = try admin.request("POST", "/admin/api/publish", body: #"{"room":"no room!","text":"x"}"#)
    #expect(bad.status == 400)
    #expect(bad.errorCode == "bad_room")

    // The three actions' lines (the refused publish's too); stderr is read as it comes.
    let logged = { server.stderr.split(separator: "\n").filter { $0.contains("admin action") } }
    #expect(eventually { logged().count >= 3 }, "\(server.stderr)")
    let lines = logged()
    #expect(lines.count == 3, "\(lines)")
    for line in lines {
      #expect(line.contains(" notice "), "\(line)")
      #expect(line.contains("peer=127.0.0.1"), "\(line)")
    }
    #expect(lines.contains { $0.contains("action=publish") && $0.contains("room=lobby") })
  }
}
