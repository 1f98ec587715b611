import SwitchboardCrypto
import SwitchboardHTTP

/// The WebSocket opening handshake (RFC 6455 section 4), both sides, over the
/// `SwitchboardHTTP` types. Pure functions: no I/O.
///
/// Server: ``serverResponse(to:options:)`` checks an upgrade request and returns either
/// the `101 Switching Protocols` response with what was negotiated, or the error
/// response to send instead. Client: ``clientRequest(host:path:subprotocols:extraHeaders:deflate:keyBytes:)``
/// builds the request and ``ClientRequest/validate(_:)`` checks the server's answer.
public enum WebSocketHandshake {
  /// The GUID RFC 6455 appends to the key before hashing.
  public static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

  /// The only protocol version this implementation speaks.
  public static let version = "13"

  /// The `Sec-WebSocket-Accept` value for a `Sec-WebSocket-Key`: base64 of the SHA-1 of
  /// the key followed by ``guid``.
  public static func acceptValue(forKey key: String) -> String {
    Base64.encode(SHA1.hash((key + guid).utf8))
  }

  /// Whether `key` is a valid `Sec-WebSocket-Key`: base64 of exactly 16 bytes.
  public static func isValidKey(_ key: String) -> Bool {
    key.utf8.count == 24 && Base64.decode(key)?.count == 16
  }

  // MARK: Server

  /// What a server supports.
  public struct ServerOptions: Sendable, Hashable {
    /// Subprotocols the server speaks. The first protocol in the client's list that is
    /// also here is chosen; none is chosen if there is no match.
    public var subprotocols: [String]
    /// The server's permessage-deflate preferences, or `nil` to never negotiate it.
    public var deflate: PerMessageDeflate.Parameters?
    /// Extra header fields for the 101 response.
    public var extraHeaders: [(String, String)]

    /// Creates options.
    /// - Parameters:
    ///   - subprotocols: Supported subprotocols (default none).
    ///   - deflate: permessage-deflate preferences, or `nil` (the default) to disable it.
    ///   - extraHeaders: Extra response header fields.
    public init(
      subprotocols: [String] = [], deflate: PerMessageDeflate.Parameters? = nil,
      extraHeaders: [(String, String)] = []
    ) {
      self.subprotocols = subprotocols
      self.deflate = deflate
      self.extraHeaders = extraHeaders
    }

    /// Compares all fields.
    public static func == (lhs: ServerOptions, rhs: ServerOptions) -> Bool {
      lhs.subprotocols == rhs.subprotocols && lhs.deflate == rhs.deflate
        && lhs.extraHeaders.elementsEqual(rhs.extraHeaders, by: { $0 == $1 })
    }

    /// Hashes all fields.
    public func hash(into hasher: inout Hasher) {
      hasher.combine(subprotocols)
      hasher.combine(deflate)
      for (name, value) in extraHeaders {
        hasher.combine(name)
        hasher.combine(value)
      }
    }
  }

  /// A successful server handshake.
  public struct ServerAccept: Sendable, Hashable {
    /// The `101 Switching Protocols` response.
    public var response: HTTPResponse
    /// The chosen subprotocol, if any.
    public var subprotocol: String?
    /// The negotiated permessage-deflate parameters, if any: pass them to
    /// ``WebSocketConnection/init(role:configuration:deflate:maskKeyProvider:)``.
    public var deflate: PerMessageDeflate.Parameters?
    /// The request's `Origin`, for the caller's own policy (browsers always send it).
    public var origin: String?
    /// The request path (`/rooms/lobby`).
    public var path: String
    /// The request's query parameters.
    public var query: [String: String]

    /// The response bytes to write before switching to WebSocket frames.
    public var responseBytes: [UInt8] { response.encode() }
  }

  /// The outcome of checking an upgrade request.
  public enum ServerResult: Sendable, Hashable {
    /// Upgrade: write the response, then speak WebSocket.
    case accept(ServerAccept)
    /// Refuse: write `response` (400, 405 or 426) and close; `reason` says why.
    case reject(response: HTTPResponse, reason: String)
  }

  /// Checks a WebSocket upgrade request and negotiates subprotocol and compression.
  ///
  /// Requires `GET`, HTTP/1.1 or later, `Upgrade: websocket`, `Connection` listing
  /// `upgrade` (case-insensitive), `Sec-WebSocket-Version: 13` (otherwise 426 with
  /// `Sec-WebSocket-Version: 13`) and a `Sec-WebSocket-Key` that is base64 of 16 bytes
  /// (otherwise 400).
  /// - Parameters:
  ///   - request: The parsed request head.
  ///   - options: What the server supports.
  public static func serverResponse(to request: HTTPRequestHead, options: ServerOptions = ServerOptions())
    -> ServerResult
  {
    let headers = request.headers
    guard request.method == "GET" else {
      return reject(405, "WebSocket upgrade requires GET", extra: [("Allow", "GET")])
    }
    guard request.version >= .http1_1 else { return reject(400, "WebSocket upgrade requires HTTP/1.1") }
    guard headers.contains(token: "websocket", in: "Upgrade") else {
      return reject(400, "missing Upgrade: websocket")
    }
    guard headers.contains(token: "upgrade", in: "Connection") else {
      return reject(400, "missing Connection: upgrade")
    }
    guard headers.values("Sec-WebSocket-Version").count == 1,
      headers["Sec-WebSocket-Version"].map(trimmed) == version
    else {
      return reject(426, "unsupported Sec-WebSocket-Version", extra: [("Sec-WebSocket-Version", version)])
    }
    let keys = headers.values("Sec-WebSocket-Key")
    guard keys.count == 1, isValidKey(trimmed(keys[0])) else {
      return reject(400, "invalid Sec-WebSocket-Key")
    }
    var responseHeaders = HTTPHeaders([
      ("Upgrade", "websocket"), ("Connection", "Upgrade"),
      ("Sec-WebSocket-Accept", acceptValue(forKey: trimmed(keys[0]))),
    ])
    let offered = headers.values("Sec-WebSocket-Protocol").flatMap(tokens)
    let subprotocol = offered.first { options.subprotocols.contains($0) }
    if let subprotocol { responseHeaders.add(name: "Sec-WebSocket-Protocol", value: subprotocol) }
    var deflate: PerMessageDeflate.Parameters?
    if let preferences = options.deflate,
      let negotiated = PerMessageDeflate.negotiate(
        offers: headers.values("Sec-WebSocket-Extensions"), preferences: preferences)
    {
      deflate = negotiated.parameters
      responseHeaders.add(name: "Sec-WebSocket-Extensions", value: negotiated.response)
    }
    for (name, value) in options.extraHeaders { responseHeaders.add(name: name, value: value) }
    let accept = ServerAccept(
      response: HTTPResponse(status: 101, headers: responseHeaders), subprotocol: subprotocol,
      deflate: deflate,
      origin: headers["Origin"], path: request.path, query: request.query)
    return .accept(accept)
  }

  /// Checks an upgrade request given as plain parts (for callers without an
  /// `HTTPRequestHead`).
  public static func serverResponse(
    method: String, target: String, version: HTTPVersion = .http1_1, headers: [(String, String)],
    options: ServerOptions = ServerOptions()
  ) -> ServerResult {
    serverResponse(
      to: HTTPRequestHead(method: method, target: target, version: version, headers: HTTPHeaders(headers)),
      options: options)
  }

  private static func reject(_ status: Int, _ reason: String, extra: [(String, String)] = []) -> ServerResult
  {
    var response = HTTPResponse.text(status, reason + "\n")
    for (name, value) in extra { response.headers.add(name: name, value: value) }
    response.headers.add(name: "Connection", value: "close")
    return .reject(response: response, reason: reason)
  }

  /// A header value without its surrounding optional whitespace.
  static func trimmed(_ s: String) -> String {
    String(s.trimmingSpacesAndTabs())
  }

  static func tokens(_ s: String) -> [String] {
    s.split(separator: ",").map { trimmed(String($0)) }.filter { !$0.isEmpty }
  }
}
