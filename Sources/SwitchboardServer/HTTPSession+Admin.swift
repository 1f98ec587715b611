import SwitchboardAuth
import SwitchboardCrypto
import SwitchboardHTTP
import SwitchboardIO
import SwitchboardLog
import SwitchboardWebSocket

/// The admin console on the HTTP and HTTPS ports (docs/OPERATIONS.md, "The admin console"):
/// the page, login, session, logout, the server API's endpoints under `/admin/api/` behind
/// the console's cookie, and the live stream (HTTPSession+AdminEvents.swift). Everything
/// under `/admin` answers 404 while no admin password is set.
extension HTTPSession {
  /// The session cookie's name.
  static let adminCookie = "switchboard_admin"

  /// Whether `path` is the console's: `/admin` and everything under `/admin/`.
  static func ownsAdmin(_ path: String) -> Bool {
    path == "/admin" || path.hasPrefix("/admin/")
  }

  /// Serves `request` (an `/admin` path), now or later.
  func serveAdmin(_ request: HTTPRequest) {
    let head = request.head
    let admin = context.core.admin
    guard admin.isEnabled else { return answerAdmin(ServerAPIError.adminNotFound(head.path).response, head) }
    switch head.path {
    case "/admin", "/admin/":
      guard head.method == "GET" || head.method == "HEAD" else {
        return answerAdmin(ServerAPIError.methodNotAllowed("GET, HEAD").response, head)
      }
      answerAdmin(Self.adminPage, head)
    case "/admin/login":
      guard head.method == "POST" else {
        return answerAdmin(ServerAPIError.methodNotAllowed("POST").response, head)
      }
      answerAdmin(login(request), head)
    case "/admin/session":
      guard head.method == "GET" || head.method == "HEAD" else {
        return answerAdmin(ServerAPIError.methodNotAllowed("GET, HEAD").response, head)
      }
      guard let session = adminSession(head) else {
        return answerAdmin(ServerAPIError.loginRequired.response, head)
      }
      answerAdmin(Self.sessionAnswer(200, session), head)
    case "/admin/logout":
      guard head.method == "POST" else {
        return answerAdmin(ServerAPIError.methodNotAllowed("POST").response, head)
      }
      guard let session = adminSession(head) else {
        return answerAdmin(ServerAPIError.loginRequired.response, head)
      }
      guard csrfAllows(head, session) else { return answerAdmin(ServerAPIError.csrf.response, head) }
      admin.logout(session.id)
      context.logger.notice("admin logout", metadata: ["peer": adminPeer])
      var response = HTTPResponse(status: 204, headers: ["Cache-Control": "no-store"], body: [])
      response.headers.add(name: "Set-Cookie", value: cookie(value: "", maxAge: 0))
      answerAdmin(response, head)
    case "/admin/events":
      guard head.method == "GET" else {
        return answerAdmin(ServerAPIError.methodNotAllowed("GET").response, head)
      }
      guard let session = adminSession(head) else {
        return answerAdmin(ServerAPIError.loginRequired.response, head)
      }
      startAdminStream(head, session)
    default:
      guard head.path.hasPrefix("/admin/api/") else {
        return answerAdmin(ServerAPIError.adminNotFound(head.path).response, head)
      }
      guard let session = adminSession(head) else {
        return answerAdmin(ServerAPIError.loginRequired.response, head)
      }
      let changes = head.method != "GET" && head.method != "HEAD"
      if changes {
        guard csrfAllows(head, session) else { return answerAdmin(ServerAPIError.csrf.response, head) }
        logAdminAction(request)
      }
      var inner = request
      inner.head.target = String(head.target.dropFirst("/admin".count))
      serveAPI(inner, authorized: true)
    }
  }

  private func answerAdmin(_ response: HTTPResponse, _ head: HTTPRequestHead) {
    var response = response
    if head.method == "HEAD" { response.body = [] }
    respond(response, keepAlive: head.keepAlive)
  }

  /// The client's address, for the limiter and the logs.
  var adminPeer: String { connection.remoteAddress?.ipAddress ?? "unknown" }

  private var isSecure: Bool {
    if case .tls = connection { return true }
    return false
  }

  // MARK: The page

  /// The page with its headers: a Content-Security-Policy that lets it reach nothing but
  /// this server (inline scripts by their hashes; inline styles allowed), no framing, no
  /// caching.
  static let adminPage: HTTPResponse = {
    var response = HTTPResponse.html(200, AdminPage.html)
    response.headers.add(name: "Content-Security-Policy", value: adminPagePolicy(AdminPage.html))
    response.headers.add(name: "X-Frame-Options", value: "DENY")
    response.headers.add(name: "X-Content-Type-Options", value: "nosniff")
    response.headers.add(name: "Referrer-Policy", value: "no-referrer")
    response.headers.add(name: "Cache-Control", value: "no-store")
    return response
  }()

  /// The page's policy: each inline `<script>` allowed by its SHA-256.
  static func adminPagePolicy(_ html: String) -> String {
    var hashes: [String] = []
    var rest = Substring(html)
    while let open = rest.range(of: "<script>"), let close = rest[open.upperBound...].range(of: "</script>") {
      let body = rest[open.upperBound..<close.lowerBound]
      hashes.append("'sha256-\(Base64.encode(SHA256.hash(Array(body.utf8))))'")
      rest = rest[close.upperBound...]
    }
    let scripts = hashes.isEmpty ? "'none'" : hashes.joined(separator: " ")
    return "default-src 'none'; script-src \(scripts); style-src 'unsafe-inline'; connect-src 'self'; "
      + "img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
  }

  // MARK: Login and sessions

  private func login(_ request: HTTPRequest) -> HTTPResponse {
    guard request.body.count <= AdminConsole.maxLoginBody else {
      return ServerAPIError.loginBodyTooLarge.response
    }
    let password: String
    do throws(ServerAPIError) {
      password = try Self.loginPassword(request)
    } catch {
      return error.response
    }
    let peer = adminPeer
    switch context.core.admin.login(password: password, address: peer) {
    case .opened(let session):
      context.logger.notice("admin login", metadata: ["peer": peer])
      var response = Self.sessionAnswer(200, session)
      response.headers.add(name: "Set-Cookie", value: cookie(value: session.id, maxAge: adminCookieMaxAge))
      return response
    case .wrongPassword:
      context.logger.warning("admin login refused", metadata: ["peer": peer, "reason": "wrong password"])
      return ServerAPIError.wrongPassword.response
    case .tooManyAttempts(let retryAfter):
      context.logger.warning("admin login refused", metadata: ["peer": peer, "reason": "too many attempts"])
      return ServerAPIError.tooManyAttempts(retryAfter: retryAfter).response
    case .disabled:
      return ServerAPIError.adminNotFound(request.head.path).response
    }
  }

  /// The password of a login body: JSON `{"password":"…"}` or a form `password=…`.
  static func loginPassword(_ request: HTTPRequest) throws(ServerAPIError) -> String {
    let type = request.head.headers["Content-Type"]?.split(separator: ";", maxSplits: 1).first
      .map { $0.trimmingSpacesAndTabs().lowercased() }
    if type == "application/x-www-form-urlencoded" {
      let form: HTTPForm
      do {
        form = try HTTPForm(
          request.body, limits: HTTPForm.Limits(maxBytes: AdminConsole.maxLoginBody, maxFields: 8))
      } catch {
        throw .badRequest("the form cannot be read: \(error)")
      }
      guard let password = form["password"] else { throw .badRequest("password is missing") }
      return password
    }
    let body = try ServerAPI.jsonObject(request)
    guard let value = body["password"] else { throw .badRequest("password is missing") }
    guard let password = value.stringValue else { throw .badRequest("password must be a string") }
    return password
  }

  private var adminCookieMaxAge: Int64 {
    context.core.admin.configuration.sessionLifetime.components.seconds
  }

  /// `Set-Cookie` for the session cookie (`maxAge` 0 clears it).
  private func cookie(value: String, maxAge: Int64) -> String {
    "\(Self.adminCookie)=\(value); Path=/admin; HttpOnly; SameSite=Strict; Max-Age=\(maxAge)"
      + (isSecure ? "; Secure" : "")
  }

  static func sessionAnswer(_ status: Int, _ session: AdminSessionTable.Session) -> HTTPResponse {
    ServerAPI.json(
      status,
      .object([
        "csrf": .string(session.csrf), "expires": .string(ServerAPI.rfc3339(milliseconds: session.expires)),
      ]))
  }

  /// The live session the request's cookie names, if any.
  func adminSession(_ head: HTTPRequestHead) -> AdminSessionTable.Session? {
    let header = head.headers.values("Cookie").joined(separator: "; ")
    for id in HTTPCookies(header: header).values(Self.adminCookie) where !id.isEmpty {
      if let session = context.core.admin.session(id) { return session }
    }
    return nil
  }

  /// Whether a state-changing request may go on: it carries the session's CSRF token and,
  /// with an `Origin`, names this server (the request's `Host`, on this port's scheme).
  func csrfAllows(_ head: HTTPRequestHead, _ session: AdminSessionTable.Session) -> Bool {
    guard let token = head.headers["X-CSRF-Token"],
      ConstantTime.equal(Array(token.trimmingSpacesAndTabs().utf8), Array(session.csrf.utf8))
    else { return false }
    guard let origin = head.headers["Origin"] else { return true }
    return Self.originMatches(origin, host: head.headers["Host"], secure: isSecure)
  }

  /// Whether `origin` (`scheme://host[:port]`) is the server at `host` (the `Host` header)
  /// on a port of this scheme; default ports may be left out of either.
  static func originMatches(_ origin: String, host: String?, secure: Bool) -> Bool {
    let scheme = secure ? "https" : "http"
    let origin = origin.trimmingSpacesAndTabs().lowercased()
    guard origin.hasPrefix(scheme + "://"), let host else { return false }
    let defaultPort = secure ? ":443" : ":80"
    func normal(_ authority: some StringProtocol) -> String {
      let text = authority.lowercased()
      return text.hasSuffix(defaultPort) ? String(text.dropLast(defaultPort.count)) : text
    }
    let authority = origin.dropFirst(scheme.count + 3)
    guard !authority.isEmpty, !authority.contains("/") else { return false }
    return normal(authority) == normal(host.trimmingSpacesAndTabs())
  }

  /// Logs a state-changing `/admin/api/` request at notice level: the admin's address, the
  /// action, and the room and user its body names.
  private func logAdminAction(_ request: HTTPRequest) {
    let action = String(request.head.path.dropFirst("/admin/api/".count))
    var metadata: Log.Metadata = [
      "peer": adminPeer, "action": action.isEmpty ? "-" : String(action.prefix(64)),
    ]
    if let body = try? ServerAPI.jsonObject(request) {
      if let room = body["room"]?.stringValue { metadata["room"] = String(room.prefix(80)) }
      if let rooms = body["rooms"]?.arrayValue {
        metadata["room"] = rooms.prefix(10).map { $0.stringValue ?? $0.encoded() }.joined(separator: ",")
      }
      if let user = body["user"]?.stringValue { metadata["user"] = String(user.prefix(80)) }
      if let author = body["author"]?.stringValue { metadata["author"] = String(author.prefix(80)) }
    }
    context.logger.notice("admin action", metadata: metadata)
  }
}

extension AdminConsole {
  /// The largest login body read, in bytes: larger is answered 413 `body_too_large`.
  static let maxLoginBody = 4096
}
