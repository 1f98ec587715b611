import SwitchboardHTTP

extension PerMessageDeflate {
  /// The permessage-deflate extension parameters (RFC 7692 section 7.1).
  ///
  /// As negotiated parameters they describe what both sides do. As a server's
  /// preferences (``negotiate(offers:preferences:)``) they are what the server wants:
  /// the window bits are maxima and each `noContextTakeover` is asked for even if the
  /// client did not offer it.
  public struct Parameters: Sendable, Hashable {
    /// The server resets its compressor after every message.
    public var serverNoContextTakeover: Bool
    /// The client resets its compressor after every message.
    public var clientNoContextTakeover: Bool
    /// The server's LZ77 window, 8–15 bits.
    public var serverMaxWindowBits: Int
    /// The client's LZ77 window, 8–15 bits.
    public var clientMaxWindowBits: Int

    /// Creates parameters; window bits are clamped to 8–15.
    public init(
      serverNoContextTakeover: Bool = false, clientNoContextTakeover: Bool = false,
      serverMaxWindowBits: Int = 15, clientMaxWindowBits: Int = 15
    ) {
      self.serverNoContextTakeover = serverNoContextTakeover
      self.clientNoContextTakeover = clientNoContextTakeover
      self.serverMaxWindowBits = min(max(serverMaxWindowBits, 8), 15)
      self.clientMaxWindowBits = min(max(clientMaxWindowBits, 8), 15)
    }
  }

  /// The extension token, `permessage-deflate`.
  public static let extensionName = "permessage-deflate"

  /// One `permessage-deflate` element of an extensions header, as parsed.
  struct Offer {
    var serverNoContextTakeover = false
    var clientNoContextTakeover = false
    var serverMaxWindowBits: Int?
    /// `.some(nil)`: the parameter was present without a value.
    var clientMaxWindowBits: Int??
  }

  /// Splits a `Sec-WebSocket-Extensions` value into elements: the extension name
  /// (lowercased) and its parameters (lowercased names, unquoted values).
  static func parseExtensions(_ header: String) -> [(name: String, parameters: [(String, String?)])] {
    var result: [(name: String, parameters: [(String, String?)])] = []
    for element in header.split(separator: ",") {
      let parts = element.split(separator: ";").map { String($0.trimmingSpacesAndTabs()) }
      guard let name = parts.first, !name.isEmpty else { continue }
      var parameters: [(String, String?)] = []
      for part in parts.dropFirst() where !part.isEmpty {
        if let eq = part.firstIndex(of: "=") {
          var value = String(part[part.index(after: eq)...].trimmingSpacesAndTabs())
          if value.count >= 2 && value.hasPrefix("\"") && value.hasSuffix("\"") {
            value = String(value.dropFirst().dropLast())
          }
          parameters.append((part[..<eq].trimmingSpacesAndTabs().lowercased(), value))
        } else {
          parameters.append((part.lowercased(), nil))
        }
      }
      result.append((name.lowercased(), parameters))
    }
    return result
  }

  private static func windowBits(_ value: String) -> Int? {
    guard value.count <= 2, value.allSatisfy({ $0.isASCII && $0.isNumber }), let bits = Int(value),
      (8...15).contains(bits), !value.hasPrefix("0")
    else { return nil }
    return bits
  }

  /// Parses one element's parameters; `nil` for unknown, duplicate or malformed ones.
  static func parseOffer(_ parameters: [(String, String?)]) -> Offer? {
    var offer = Offer()
    var seen = Set<String>()
    for (name, value) in parameters {
      guard seen.insert(name).inserted else { return nil }
      switch name {
      case "server_no_context_takeover":
        guard value == nil else { return nil }
        offer.serverNoContextTakeover = true
      case "client_no_context_takeover":
        guard value == nil else { return nil }
        offer.clientNoContextTakeover = true
      case "server_max_window_bits":
        guard let value, let bits = windowBits(value) else { return nil }
        offer.serverMaxWindowBits = bits
      case "client_max_window_bits":
        if let value {
          guard let bits = windowBits(value) else { return nil }
          offer.clientMaxWindowBits = .some(bits)
        } else {
          offer.clientMaxWindowBits = .some(nil)
        }
      default:
        return nil
      }
    }
    return offer
  }

  /// Server side: accepts the first acceptable `permessage-deflate` offer.
  /// - Parameters:
  ///   - offers: The request's `Sec-WebSocket-Extensions` values (several headers may
  ///     be passed separately or joined with commas).
  ///   - preferences: What the server wants (see ``Parameters``).
  /// - Returns: The negotiated parameters and the response's extension string, or
  ///   `nil` if the client offered nothing acceptable (then no extension is used).
  public static func negotiate(
    offers: [String], preferences: Parameters = Parameters()
  ) -> (parameters: Parameters, response: String)? {
    for element in offers.flatMap({ parseExtensions($0) }) where element.name == extensionName {
      guard let offer = parseOffer(element.parameters) else { continue }
      var negotiated = Parameters()
      var response = extensionName
      negotiated.serverNoContextTakeover =
        offer.serverNoContextTakeover || preferences.serverNoContextTakeover
      negotiated.clientNoContextTakeover =
        offer.clientNoContextTakeover || preferences.clientNoContextTakeover
      if negotiated.serverNoContextTakeover { response += "; server_no_context_takeover" }
      if negotiated.clientNoContextTakeover { response += "; client_no_context_takeover" }
      negotiated.serverMaxWindowBits = min(offer.serverMaxWindowBits ?? 15, preferences.serverMaxWindowBits)
      if offer.serverMaxWindowBits != nil || negotiated.serverMaxWindowBits < 15 {
        response += "; server_max_window_bits=\(negotiated.serverMaxWindowBits)"
      }
      if let clientBits = offer.clientMaxWindowBits {
        negotiated.clientMaxWindowBits = min(clientBits ?? 15, preferences.clientMaxWindowBits)
        if negotiated.clientMaxWindowBits < 15 {
          response += "; client_max_window_bits=\(negotiated.clientMaxWindowBits)"
        }
      }
      return (negotiated, response)
    }
    return nil
  }

  /// Server side: negotiates from a single extensions header value.
  public static func negotiate(
    offer: String, preferences: Parameters = Parameters()
  ) -> (parameters: Parameters, response: String)? {
    negotiate(offers: [offer], preferences: preferences)
  }

  /// Client side: the `Sec-WebSocket-Extensions` offer for the wanted parameters. It
  /// always includes `client_max_window_bits` (the client can honour a smaller window).
  public static func clientOffer(_ wanted: Parameters = Parameters()) -> String {
    var offer = extensionName
    if wanted.serverNoContextTakeover { offer += "; server_no_context_takeover" }
    if wanted.clientNoContextTakeover { offer += "; client_no_context_takeover" }
    if wanted.serverMaxWindowBits < 15 { offer += "; server_max_window_bits=\(wanted.serverMaxWindowBits)" }
    if wanted.clientMaxWindowBits < 15 {
      offer += "; client_max_window_bits=\(wanted.clientMaxWindowBits)"
    } else {
      offer += "; client_max_window_bits"
    }
    return offer
  }

  /// Client side: validates the server's accepted `permessage-deflate` element against
  /// the offer made with ``clientOffer(_:)``.
  /// - Parameters:
  ///   - response: The response's extension element (or whole header with only this
  ///     extension).
  ///   - offered: The parameters passed to ``clientOffer(_:)``.
  /// - Returns: The parameters both sides now use.
  /// - Throws: ``WebSocketError/protocolError`` if the response is not a valid answer to
  ///   the offer.
  public static func acceptResponse(_ response: String, offered: Parameters) throws(WebSocketError)
    -> Parameters
  {
    let elements = parseExtensions(response)
    guard elements.count == 1, elements[0].name == extensionName else {
      throw .protocolError("unexpected extensions in response: \(response)")
    }
    guard let answer = parseOffer(elements[0].parameters) else {
      throw .protocolError("invalid permessage-deflate response: \(response)")
    }
    if offered.serverNoContextTakeover && !answer.serverNoContextTakeover {
      throw .protocolError("server ignored server_no_context_takeover")
    }
    var result = Parameters()
    result.serverNoContextTakeover = answer.serverNoContextTakeover
    result.clientNoContextTakeover = answer.clientNoContextTakeover || offered.clientNoContextTakeover
    if let bits = answer.serverMaxWindowBits {
      guard bits <= offered.serverMaxWindowBits else {
        throw .protocolError("server_max_window_bits above the offer")
      }
      result.serverMaxWindowBits = bits
    } else if offered.serverMaxWindowBits < 15 {
      throw .protocolError("server did not accept server_max_window_bits")
    }
    result.clientMaxWindowBits = offered.clientMaxWindowBits
    if let clientBits = answer.clientMaxWindowBits {
      guard let bits = clientBits, bits <= offered.clientMaxWindowBits else {
        throw .protocolError("invalid client_max_window_bits in response")
      }
      result.clientMaxWindowBits = bits
    }
    return result
  }
}
