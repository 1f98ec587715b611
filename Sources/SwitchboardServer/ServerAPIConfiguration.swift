/// The server API on the HTTP and HTTPS ports (`--api-key`; docs/API.md): off unless it
/// has keys.
public struct ServerAPIConfiguration: Sendable {
  /// The largest request body the API reads, in bytes (64 KiB): a larger one is answered
  /// 413 `body_too_large`. (Above the HTTP parser's own 1 MiB limit the parser answers 413
  /// before the body is read, in plain text, and closes the connection.)
  public static let maxBodySize = 64 * 1024
  /// The rooms one `POST /api/broadcast` may name.
  public static let maxBroadcastRooms = 100
  /// The author of a publish that names none.
  public static let defaultAuthor = "app"
  /// How many messages `GET /api/rooms/ROOM/history` answers without a `limit`.
  public static let defaultHistoryLimit = 100

  /// The accepted keys; `nil` (the default) turns the API off: every `/api/` path answers
  /// 404 `api_disabled`.
  public var keys: ServerAPIKeys?
  /// How long a request that waits for the room broker (a publish, a history read) may
  /// wait before it is answered 504 `timeout`.
  public var timeout: Duration = .seconds(10)
  /// The version `GET /api/info` reports (the CLI sets its own).
  public var version = ""
  /// This node's name in `GET /api/info` and presence (the CLI sets the Redis broker's
  /// node id under `--redis`, else the instance name).
  public var nodeID = ""

  public init() {}

  /// Whether the API answers at all.
  public var isEnabled: Bool { keys != nil }
}
