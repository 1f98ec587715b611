extension Dictionary {
  /// Runs `body` on the value for `key`, changed in place, and returns its answer; `nil` —
  /// with nothing changed — when there is none. One lookup, and no second one to unwrap.
  mutating func withValue<T>(forKey key: Key, _ body: (inout Value) throws -> T) rethrows -> T? {
    guard let index = index(forKey: key) else { return nil }
    return try body(&values[index])
  }
}
