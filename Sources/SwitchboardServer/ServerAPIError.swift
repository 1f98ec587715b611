import SwitchboardAuth
import SwitchboardHTTP
import SwitchboardWire

/// A refused server API request: its status, a stable `code` for programs and a message
/// for people, answered as `{"error":{"code":"…","message":"…"}}` (docs/API.md, "Errors").
struct ServerAPIError: Error, Sendable, Hashable {
  let status: Int
  let code: String
  let message: String
  /// Headers the status calls for (`WWW-Authenticate` with 401, `Allow` with 405).
  var headers: [(String, String)] = []

  static func == (a: ServerAPIError, b: ServerAPIError) -> Bool {
    a.status == b.status && a.code == b.code && a.message == b.message
  }
  func hash(into hasher: inout Hasher) {
    hasher.combine(status)
    hasher.combine(code)
  }

  static let disabled = ServerAPIError(
    status: 404, code: "api_disabled", message: "the server API is off (serve --api-key turns it on)")
  static let unauthorized = ServerAPIError(
    status: 401, code: "unauthorized",
    message: "a valid API key is needed (Authorization: Bearer KEY or X-API-Key: KEY)",
    headers: [("WWW-Authenticate", "Bearer realm=\"switchboard\"")])
  static func notFound(_ path: String) -> ServerAPIError {
    ServerAPIError(status: 404, code: "not_found", message: "no API endpoint at \(path)")
  }
  static func methodNotAllowed(_ allowed: String) -> ServerAPIError {
    ServerAPIError(
      status: 405, code: "method_not_allowed", message: "this endpoint takes \(allowed)",
      headers: [("Allow", allowed)])
  }
  static func badRequest(_ message: String) -> ServerAPIError {
    ServerAPIError(status: 400, code: "bad_request", message: message)
  }
  static func badJSON(_ why: String) -> ServerAPIError {
    ServerAPIError(status: 400, code: "bad_json", message: "the body is not a JSON object: \(why)")
  }
  static func badRoom(_ raw: String) -> ServerAPIError {
    ServerAPIError(
      status: 400, code: "bad_room",
      message: "not a room name: \(raw.prefix(80)) (1-\(RoomName.maxLength) letters, digits, -, _ or .)")
  }
  static func unknownRoom(_ room: String) -> ServerAPIError {
    ServerAPIError(status: 404, code: "unknown_room", message: "no room \(room) here")
  }
  static let bodyTooLarge = ServerAPIError(
    status: 413, code: "body_too_large",
    message: "the body is larger than \(ServerAPIConfiguration.maxBodySize) bytes")
  static let unsupportedMediaType = ServerAPIError(
    status: 415, code: "unsupported_media_type", message: "send the body as Content-Type: application/json")
  static func tooManyRooms(_ message: String) -> ServerAPIError {
    ServerAPIError(status: 409, code: "too_many_rooms", message: message)
  }
  static func unavailable(_ message: String) -> ServerAPIError {
    ServerAPIError(status: 503, code: "unavailable", message: message)
  }
  static let timeout = ServerAPIError(
    status: 504, code: "timeout", message: "the room broker did not answer in time")

  /// The JSON error object (also one result of a broadcast).
  var json: JSONValue { .object(["code": .string(code), "message": .string(message)]) }

  /// The HTTP answer.
  var response: HTTPResponse {
    var response = ServerAPI.json(status, .object(["error": json]))
    for (name, value) in headers { response.headers.add(name: name, value: value) }
    return response
  }
}
