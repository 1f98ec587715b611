/// What the server asks an auth proxy about one connection (docs/API.md, "Auth proxy"): the
/// body of the POST, a JSON object whose members are sorted, so equal requests encode to equal
/// bytes (the answer cache's key, ``cacheKey``).
public struct AuthProxyRequest: Sendable, Hashable {
  /// `websocket` or `tcp` (line connections, TLS included).
  public var transport: String
  /// The peer's IP address (no port: the port changes on every connection and decides nothing).
  public var peer: String
  /// The name the connection asked for; `nil` when it sent something else first.
  public var name: String?
  /// The room it is joining.
  public var room: String
  /// The WebSocket upgrade's `Cookie` header (`nil` for line connections or none).
  public var cookie: String?
  /// The WebSocket upgrade's `Authorization` header.
  public var authorization: String?
  /// The WebSocket upgrade's query items (`token` left out: its claims are sent instead).
  public var query: [String: String]
  /// The verified token's claims when one was given.
  public var claims: [String: JSONValue]?

  /// A request; every member as documented on the property.
  public init(
    transport: String, peer: String, name: String?, room: String, cookie: String? = nil,
    authorization: String? = nil, query: [String: String] = [:], claims: [String: JSONValue]? = nil
  ) {
    self.transport = transport
    self.peer = peer
    self.name = name
    self.room = room
    self.cookie = cookie
    self.authorization = authorization
    self.query = query.filter { $0.key != "token" }
    self.claims = claims
  }

  /// The JSON body: `{"transport","peer","name","room","headers":{"cookie","authorization"},
  /// "query":{…},"claims"?}`; absent values are `null` (claims are left out).
  public func encoded() -> String {
    var members: [String: JSONValue] = [
      "transport": .string(transport),
      "peer": .string(peer),
      "name": name.map(JSONValue.string) ?? .null,
      "room": .string(room),
      "headers": .object([
        "cookie": cookie.map(JSONValue.string) ?? .null,
        "authorization": authorization.map(JSONValue.string) ?? .null,
      ]),
      "query": .object(query.mapValues(JSONValue.string)),
    ]
    if let claims { members["claims"] = .object(claims) }
    return JSONValue.object(members).encoded()
  }

  /// The key an answer is cached under: every input that can decide it, which is the whole
  /// request (the peer without its port).
  public var cacheKey: String { encoded() }
}
