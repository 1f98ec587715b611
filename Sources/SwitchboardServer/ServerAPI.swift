import SwitchboardAuth
import SwitchboardHTTP
import SwitchboardIO

/// The server API (docs/API.md): requests under `/api/` on the HTTP and HTTPS ports,
/// from the app's own backend. Checks the key, routes, and answers JSON, at once or — for
/// what waits on the room broker — later, through the session's answer closure, on the
/// session's loop. Made per request; holds nothing between requests.
struct ServerAPI {
  /// How a request is answered.
  enum Outcome {
    /// Now, with this response.
    case now(HTTPResponse)
    /// Later: the answer closure will be called once, on the loop (unless the session
    /// gave up waiting meanwhile).
    case later
  }

  /// The answer to a request answered later; called on the session's loop.
  typealias Answer = (HTTPResponse) -> Void

  let context: LoopContext

  /// Whether `path` is the API's: `/api` and everything under `/api/`.
  static func owns(_ path: String) -> Bool {
    path == "/api" || path.hasPrefix("/api/")
  }

  /// Serves `request`; `answer` is kept only when the outcome is ``Outcome/later``.
  /// `authorized`: the admin console's session let it in, so no API key is checked.
  func handle(_ request: HTTPRequest, authorized: Bool = false, answer: @escaping Answer) -> Outcome {
    if !authorized {
      guard let keys = context.configuration.api.keys else { return .now(ServerAPIError.disabled.response) }
      guard Self.presentedKey(request.head).map(keys.accepts) == true else {
        return .now(ServerAPIError.unauthorized.response)
      }
    }
    do throws(ServerAPIError) {
      return try route(request, answer: answer)
    } catch {
      return .now(error.response)
    }
  }

  /// The key a request carries: `Authorization: Bearer KEY` (the scheme in any case), else
  /// `X-API-Key: KEY`.
  static func presentedKey(_ head: HTTPRequestHead) -> String? {
    if let authorization = head.headers["Authorization"] {
      let parts = authorization.split(separator: " ", maxSplits: 1)
      guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
      return String(parts[1].trimmingSpacesAndTabs())
    }
    return head.headers["X-API-Key"].map { String($0.trimmingSpacesAndTabs()) }
  }

  /// A JSON answer (`application/json`; no caching, since it describes the moment).
  static func json(_ status: Int, _ value: JSONValue) -> HTTPResponse {
    HTTPResponse(
      status: status, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
      body: Array((value.encoded() + "\n").utf8))
  }

  /// The body of a POST as a JSON object: refused when over
  /// ``ServerAPIConfiguration/maxBodySize``, not JSON (a `Content-Type` other than
  /// `application/json` or `…+json`; none is taken as JSON), or not an object.
  static func jsonObject(_ request: HTTPRequest) throws(ServerAPIError) -> [String: JSONValue] {
    guard request.body.count <= ServerAPIConfiguration.maxBodySize else { throw .bodyTooLarge }
    if let type = request.head.headers["Content-Type"] {
      let media = type.split(separator: ";", maxSplits: 1).first.map { $0.trimmingSpacesAndTabs().lowercased() } ?? ""
      guard media == "application/json" || media.hasSuffix("+json") else { throw .unsupportedMediaType }
    }
    let value: JSONValue
    do {
      value = try JSONValue(parsing: request.body)
    } catch {
      throw .badJSON(error.description)
    }
    guard let object = value.objectValue else { throw .badJSON("not an object") }
    return object
  }
}
