/// The server's frames about a connection's token (docs/SECURITY.md, "Token refresh").
extension JSONDialect {
  /// `{"type":"token_expiring","data":{"seconds":N}}`: the connection's token runs out in
  /// `seconds`; the client answers with a `refresh` frame or is closed then.
  public static func tokenExpiring(seconds: Int64) -> String {
    #"{"type":"token_expiring","data":{"seconds":\#(seconds)}}"#
  }

  /// `{"type":"token_refreshed","data":{"seconds":N}}`: the answer to a good `refresh`; the
  /// new token runs out in `seconds` (`null` when it has no expiry).
  public static func tokenRefreshed(seconds: Int64?) -> String {
    #"{"type":"token_refreshed","data":{"seconds":\#(seconds.map(String.init) ?? "null")}}"#
  }
}

extension JSONDialect {
  /// `{"type":"refresh","data":{"token":T}}`: a client's fresh token (``ClientFrame/refresh(token:)``).
  public static func refresh(token: String) -> String {
    #"{"type":"refresh","data":{"token":"# + quote(token) + "}}"
  }
}
