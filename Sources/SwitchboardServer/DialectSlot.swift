/// Slots of ``EncodingCache`` per dialect: the same bytes serve every member of a dialect.
enum DialectSlot {
  /// `NAME: TEXT\n`, for TCP lines and UDP datagrams alike.
  static let line = 0
  /// JSON protocol frames (WebSocket).
  static let json = 1
  /// Raw text frames (`?format=text`).
  static let text = 2
  /// Binary frames.
  static let binary = 3
}
