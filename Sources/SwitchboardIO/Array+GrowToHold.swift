extension Array {
  /// Appends `filler` until `index` is a valid index, to a power-of-two count of at least
  /// 64: the growth of the tables indexed by descriptor number (``DescriptorTable``, the
  /// Dispatch backend's), whose numbers are dense and only grow. A no-op when `index` is
  /// already valid.
  mutating func grow(toHold index: Int, with filler: Element) {
    guard index >= count else { return }
    var size = Swift.max(count, 64)
    while size <= index { size *= 2 }
    append(contentsOf: repeatElement(filler, count: size - count))
  }
}
