/// Room name rules shared by every dialect.
public enum RoomName {
  /// Returns the name if it is 1–64 characters of letters, digits, `-`, `_`, `.`.
  public static func validate(_ raw: String) -> String? {
    guard !raw.isEmpty, raw.count <= 64,
      raw.unicodeScalars.allSatisfy({
        ($0.properties.isAlphabetic || $0.properties.numericType != nil || "-_.".unicodeScalars.contains($0))
      })
    else { return nil }
    return raw
  }
}
