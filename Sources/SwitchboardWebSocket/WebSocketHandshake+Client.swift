import SwitchboardHTTP

extension WebSocketHandshake {
  /// A client's opening handshake request and what it offered.
  public struct ClientRequest: Sendable, Hashable {
    /// The request head to send.
    public var head: HTTPRequestHead
    /// The `Sec-WebSocket-Key` sent.
    public var key: String
    /// The subprotocols offered, in preference order.
    public var subprotocols: [String]
    /// The permessage-deflate parameters offered, if any.
    public var deflate: PerMessageDeflate.Parameters?

    /// The request bytes to write.
    public var requestBytes: [UInt8] { head.encode() }

    /// What a successful handshake agreed on.
    public struct Result: Sendable, Hashable {
      /// The subprotocol the server chose, if any.
      public var subprotocol: String?
      /// The permessage-deflate parameters now in force, if any.
      public var deflate: PerMessageDeflate.Parameters?
    }

    /// Checks the server's response: status 101, `Upgrade: websocket`, `Connection:
    /// upgrade`, the right `Sec-WebSocket-Accept`, extensions only from the offer and a
    /// subprotocol only from the offer.
    /// - Throws: ``WebSocketError/handshakeFailed`` describing the first problem.
    public func validate(_ response: HTTPResponseHead) throws(WebSocketError) -> Result {
      let headers = response.headers
      guard response.status == 101 else {
        throw .handshakeFailed("expected status 101, got \(response.status)")
      }
      guard headers.contains(token: "websocket", in: "Upgrade") else {
        throw .handshakeFailed("missing Upgrade: websocket")
      }
      guard headers.contains(token: "upgrade", in: "Connection") else {
        throw .handshakeFailed("missing Connection: upgrade")
      }
      guard headers.values("Sec-WebSocket-Accept").map(trimmed) == [acceptValue(forKey: key)] else {
        throw .handshakeFailed("wrong Sec-WebSocket-Accept")
      }
      var result = Result()
      let protocols = headers.values("Sec-WebSocket-Protocol").flatMap(tokens)
      if !protocols.isEmpty {
        guard protocols.count == 1, subprotocols.contains(protocols[0]) else {
          throw .handshakeFailed("server chose a subprotocol that was not offered")
        }
        result.subprotocol = protocols[0]
      }
      let extensions = headers.values("Sec-WebSocket-Extensions").flatMap(tokens)
      if !extensions.isEmpty {
        guard let offered = deflate, extensions.count == 1 else {
          throw .handshakeFailed("server accepted extensions that were not offered")
        }
        do {
          result.deflate = try PerMessageDeflate.acceptResponse(extensions[0], offered: offered)
        } catch {
          throw .handshakeFailed(error.message)
        }
      }
      return result
    }
  }

  /// Builds a client's opening handshake request.
  /// - Parameters:
  ///   - host: The `Host` value (with `:port` when not the default).
  ///   - path: The request target (`/rooms/lobby?since=3`), default `/`.
  ///   - subprotocols: Subprotocols to offer, in preference order.
  ///   - extraHeaders: Extra fields (`Origin`, `Authorization`, …).
  ///   - deflate: permessage-deflate parameters to offer, or `nil`.
  ///   - keyBytes: The 16 nonce bytes; random (`UInt8.random`) by default, fixed in tests.
  public static func clientRequest(
    host: String, path: String = "/", subprotocols: [String] = [], extraHeaders: [(String, String)] = [],
    deflate: PerMessageDeflate.Parameters? = nil, keyBytes: [UInt8]? = nil
  ) -> ClientRequest {
    let nonce = keyBytes ?? (0..<16).map { _ in UInt8.random(in: 0...255) }
    precondition(nonce.count == 16, "a WebSocket key is 16 bytes")
    let key = Base64.encode(nonce)
    var headers = HTTPHeaders([
      ("Host", host), ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Key", key),
      ("Sec-WebSocket-Version", version),
    ])
    if !subprotocols.isEmpty {
      headers.add(name: "Sec-WebSocket-Protocol", value: subprotocols.joined(separator: ", "))
    }
    if let deflate {
      headers.add(name: "Sec-WebSocket-Extensions", value: PerMessageDeflate.clientOffer(deflate))
    }
    for (name, value) in extraHeaders { headers.add(name: name, value: value) }
    return ClientRequest(
      head: HTTPRequestHead(method: "GET", target: path.isEmpty ? "/" : path, headers: headers), key: key,
      subprotocols: subprotocols, deflate: deflate)
  }
}
