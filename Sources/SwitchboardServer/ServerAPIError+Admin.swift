/// The admin console's refusals (docs/OPERATIONS.md, "The admin console"), in the server
/// API's error shape.
extension ServerAPIError {
  /// Any `/admin` path while the console is off, or a path it does not serve.
  static func adminNotFound(_ path: String) -> ServerAPIError {
    ServerAPIError(status: 404, code: "not_found", message: "not found: \(path.prefix(200))")
  }
  static let wrongPassword = ServerAPIError(status: 401, code: "wrong_password", message: "wrong password")
  static let loginRequired = ServerAPIError(
    status: 401, code: "login_required", message: "log in first (POST /admin/login)")
  static let csrf = ServerAPIError(
    status: 403, code: "csrf",
    message:
      "a state-changing request needs the session's X-CSRF-Token and, with an Origin, this server's own")
  static func tooManyAttempts(retryAfter: Int) -> ServerAPIError {
    ServerAPIError(
      status: 429, code: "too_many_attempts",
      message: "too many failed logins from this address: try again in \(retryAfter) s",
      headers: [("Retry-After", "\(retryAfter)")])
  }
  static let loginBodyTooLarge = ServerAPIError(
    status: 413, code: "body_too_large", message: "a login body is at most \(AdminConsole.maxLoginBody) bytes"
  )
}
