import Foundation
import SwitchboardIO
import SwitchboardTLS
import SwitchboardTestSupport
import Testing

/// The admin console's front door on the real binary (docs/OPERATIONS.md, "The admin
/// console"): off by default, the password, the login limiter, the cookie and the session.
@Suite(.onTestThreads, .enabled(ifAvailable: Executables.switchboard != nil, "needs the switchboard binary"))
struct AdminLoginTests {
  static let password = "correct horse battery"

  @Test func withoutAPasswordEverythingUnderAdminIs404() throws {
    let server = try ServeProcess.start(["--ephemeral"], listeners: [.http])
    defer { server.stop() }
    let admin = AdminTestClient(port: server.http)
    for (method, path) in [
      ("GET", "/admin"), ("GET", "/admin/"), ("GET", "/admin/events"), ("GET", "/admin/api/info"),
    ] {
      let answer = try admin.request(method, path)
      #expect(answer.status == 404, "\(method) \(path)")
      #expect(answer.errorCode == "not_found", "\(answer.body)")
    }
    let login = try admin.login(Self.password)
    #expect(login.status == 404)
    #expect(login.headers["Set-Cookie"] == nil)
  }

  /// A wrong password is 401; after four, the fifth fast try is 429 with `Retry-After`
  /// whatever it carries (the right password too), and once the wait is over the right
  /// password logs in.
  @Test func theFifthFastTryIsRefusedUncheckedEvenWithTheRightPassword() throws {
    let server = try ServeProcess.start(
      ["--ephemeral", "--admin-password", Self.password], listeners: [.http])
    defer { server.stop() }
    let admin = AdminTestClient(port: server.http)
    for attempt in 1...4 {
      let wrong = try admin.login("not the password")
      #expect(wrong.status == 401, "attempt \(attempt)")
      #expect(wrong.errorCode == "wrong_password")
      #expect(wrong.headers["Set-Cookie"] == nil)
    }
    let limited = try admin.login(Self.password)
    #expect(limited.status == 429)
    #expect(limited.errorCode == "too_many_attempts")
    #expect(
      limited.headers["Retry-After"].flatMap(Int.init).map { (1...2).contains($0) } == true,
      "\(limited.headers)")
    #expect(admin.cookie == nil)
    #expect(eventually { (try? admin.login(Self.password).status) == 200 }, "the block did not end")
    #expect(admin.cookie != nil)
    #expect(
      server.stderr.contains("admin login refused peer=127.0.0.1 reason=\"too many attempts\""),
      "\(server.stderr)")
  }

  /// The right password: the cookie's attributes, a session that answers its token, a
  /// logout that needs the token and forgets the session.
  @Test func aLoginOpensASessionThatLogoutForgets() throws {
    let server = try ServeProcess.start(
      ["--ephemeral", "--admin-password", Self.password], listeners: [.http])
    defer { server.stop() }
    let admin = AdminTestClient(port: server.http)
    #expect(try admin.request("GET", "/admin/session").errorCode == "login_required")
    let login = try admin.request(
      "POST", "/admin/login", body: "password=correct+horse%20battery",
      contentType: "application/x-www-form-urlencoded")
    #expect(login.status == 200, "\(login.body)")
    let cookie = try #require(login.headers["Set-Cookie"])
    #expect(cookie.contains("; Path=/admin"))
    #expect(cookie.contains("; HttpOnly"))
    #expect(cookie.contains("; SameSite=Strict"))
    #expect(cookie.contains("; Max-Age=43200"))
    #expect(!cookie.contains("Secure"))
    let id = try #require(AdminTestClient.sessionCookie(cookie))
    #expect(id.count == 64 && id.allSatisfy(\.isHexDigit))
    let csrf = try #require(login.json["csrf"]?.stringValue)
    #expect(login.json["expires"]?.stringValue?.hasSuffix("Z") == true)
    admin.cookie = id
    admin.csrf = csrf
    let session = try admin.request("GET", "/admin/session")
    #expect(session.status == 200)
    #expect(session.json["csrf"]?.stringValue == csrf)
    #expect(try admin.request("POST", "/admin/logout", csrf: false).errorCode == "csrf")
    let logout = try admin.request("POST", "/admin/logout")
    #expect(logout.status == 204)
    #expect(logout.headers["Set-Cookie"]?.contains("switchboard_admin=; Path=/admin") == true)
    #expect(logout.headers["Set-Cookie"]?.contains("Max-Age=0") == true)
    #expect(try admin.request("GET", "/admin/session").errorCode == "login_required")
    #expect(try admin.request("GET", "/admin/api/info").errorCode == "login_required")
  }

  /// Over-large input is refused before it is read: a login body over 4 KiB, a form with
  /// too many fields, a `Cookie` header over 8 KiB (read as none).
  @Test func anOversizedLoginBodyIsRefused() throws {
    let server = try ServeProcess.start(
      ["--ephemeral", "--admin-password", Self.password], listeners: [.http])
    defer { server.stop() }
    let admin = AdminTestClient(port: server.http)
    let big = try admin.request(
      "POST", "/admin/login", body: #"{"password":"\#(String(repeating: "x", count: 5000))"}"#)
    #expect(big.status == 413)
    #expect(big.errorCode == "body_too_large")
    let fields = (0..<9).map { "f\($0)=1" }.joined(separator: "&") + "&password=\(Self.password)"
    let full = try admin.request(
      "POST", "/admin/login", body: fields, contentType: "application/x-www-form-urlencoded")
    #expect(full.status == 400)
    #expect(full.errorCode == "bad_request")
    try admin.login(Self.password)
    #expect(try admin.request("GET", "/admin/session").status == 200)
    let padding = String(repeating: "p", count: 9000)
    let cookieless = try admin.request("GET", "/admin/session", headers: [("Cookie", "pad=\(padding)")])
    #expect(cookieless.errorCode == "login_required")
  }

  /// The page: its headers keep it from loading anything but this server, or being framed.
  @Test func thePageCarriesAStrictPolicy() throws {
    let server = try ServeProcess.start(
      ["--ephemeral", "--admin-password", Self.password], listeners: [.http])
    defer { server.stop() }
    let page = try AdminTestClient(port: server.http).request("GET", "/admin")
    #expect(page.status == 200)
    #expect(page.headers["Content-Type"]?.hasPrefix("text/html") == true)
    let policy = try #require(page.headers["Content-Security-Policy"])
    #expect(policy.contains("default-src 'none'"))
    #expect(policy.contains("connect-src 'self'"))
    #expect(!policy.contains("http"), "no other origin: \(policy)")
    #expect(page.headers["X-Frame-Options"] == "DENY")
    #expect(page.headers["Cache-Control"] == "no-store")
    #expect(page.body.contains("<html"))
    // Like the chat page, it is refused under a name the Host allow-list does not hold (a
    // DNS-rebinding page), and so are its API and its stream.
    let address = try SocketAddress(host: "127.0.0.1", port: server.http)
    for path in ["/admin", "/admin/api/info", "/admin/events"] {
      #expect(try rawRequestStatus(address, path: path, host: "rebind.example.com").0 == 421, "\(path)")
    }
  }

  /// On the HTTPS port the cookie is `Secure` (curl, a peer nobody here wrote).
  @Test(.enabled(if: TestPKI.hasOpenSSL && TLSSupport.isAvailable && Executables.tool("curl") != nil))
  func theCookieIsSecureOnHTTPS() async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let server = try await ServeProcess.start(
      [
        "--ephemeral", "--admin-password", Self.password, "--tls-cert", pki.serverCertificate, "--tls-key",
        pki.serverKey,
      ],
      listeners: [.http, .https])
    defer { server.stop() }
    let curl = try ChildProcess(
      Executables.tool("curl")!,
      [
        "-sS", "-i", "--cacert", pki.caFile, "--resolve", "localhost:\(server.https):127.0.0.1", "--json",
        #"{"password":"\#(Self.password)"}"#, "https://localhost:\(server.https)/admin/login",
      ])
    #expect(try await curl.waitForExit() == 0, "\(curl.stderr)")
    let cookie = curl.stdout.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie:") }
    #expect(cookie?.hasSuffix("; Secure") == true, "\(curl.stdout)")
  }

  /// A password under 8 bytes, or both flags, is a usage error (exit 64, one line).
  @Test func aShortPasswordOrBothFlagsIsAUsageError() throws {
    for arguments in [
      ["--admin-password", "short"],
      ["--admin-password", Self.password, "--admin-password-file", "/dev/null"],
    ] {
      let serve = try ChildProcess(
        Executables.switchboard!,
        ["serve", "--no-advertise", "--ephemeral", "--http-port", "any"] + arguments)
      #expect(try serve.waitForExit() == 64, "\(arguments)")
      #expect(serve.stderr.hasPrefix("switchboard serve: "), "\(serve.stderr)")
      #expect(serve.stderr.hasSuffix("Try 'switchboard serve --help'.\n"), "\(serve.stderr)")
    }
  }

  /// `--admin-password-file` takes the file's first line and reads it again on SIGHUP; a
  /// session opened before stays open.
  @Test func sighupRereadsThePasswordFile() async throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "admin-password-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try "\(Self.password)\n".write(to: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: file) }
    let server = try await ServeProcess.start(
      ["--ephemeral", "--admin-password-file", file.path], listeners: [.http])
    defer { server.stop() }
    let before = AdminTestClient(port: server.http)
    #expect(try before.login(Self.password).status == 200)
    try "a new password\n".write(to: file, atomically: true, encoding: .utf8)
    server.signal(SIGHUP)
    try await eventually("the password was reloaded") { server.stderr.contains("admin password reloaded") }
    #expect(try AdminTestClient(port: server.http).login("a new password").status == 200)
    #expect(try AdminTestClient(port: server.http).login(Self.password).status == 401)
    #expect(try before.request("GET", "/admin/session").status == 200)
  }
}
