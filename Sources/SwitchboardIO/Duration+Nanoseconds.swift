extension Duration {
  /// The duration in whole nanoseconds (negative durations count as zero).
  public var nanoseconds: UInt64 {
    let (s, atto) = components
    if s < 0 { return 0 }
    return UInt64(s) &* 1_000_000_000 &+ UInt64(max(atto, 0) / 1_000_000_000)
  }
}
