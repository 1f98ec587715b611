/// Immutable bytes at a stable address, shared by every connection they are written to.
///
/// A broadcast encodes a frame once into a `SharedBytes` and appends the same object to
/// each recipient's outbound queue; the flush's `sendmsg` points straight at its storage.
public final class SharedBytes: Sendable {
  // Safety: the storage is written once in `init` and only read afterwards.
  nonisolated(unsafe) let base: UnsafeMutableRawPointer
  /// The number of bytes.
  public let count: Int

  /// Copies `bytes` into new storage.
  public init(_ bytes: some Collection<UInt8>) {
    count = bytes.count
    base = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
    let base = self.base
    // Contiguous sources (arrays, slices) are one memcpy, not a byte-by-byte copy.
    let copied: Void? = bytes.withContiguousStorageIfAvailable { source in
      if let src = source.baseAddress, source.count > 0 { base.copyMemory(from: src, byteCount: source.count) }
    }
    if copied == nil {
      let buffer = UnsafeMutableRawBufferPointer(start: base, count: count)
      _ = buffer.initializeMemory(as: UInt8.self, from: bytes)
    }
  }

  /// Copies the bytes of `buffer`.
  public init(copying buffer: UnsafeRawBufferPointer) {
    count = buffer.count
    base = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
    if count > 0, let src = buffer.baseAddress { base.copyMemory(from: src, byteCount: count) }
  }

  /// `count` bytes written in place by `initializer`, which sets every one of them and
  /// returns `true`, or returns `false` (the storage is freed, and the result is `nil`):
  /// for bytes whose size is known before the first is written (a frame built straight into
  /// the storage that carries it, with no array and no copy in between) and which may turn
  /// out not to be wanted (a fast path that finds it does not apply). A designated
  /// initialiser, so here and not in an extension.
  public init?(uninitializedCount count: Int, initializingWith initializer: (UnsafeMutableRawBufferPointer) -> Bool) {
    let base = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
    guard initializer(UnsafeMutableRawBufferPointer(start: base, count: count)) else {
      base.deallocate()
      return nil
    }
    self.base = base
    self.count = count
  }

  /// The UTF-8 bytes of `string`.
  public convenience init(string: String) {
    var s = string
    self.init(s.withUTF8 { Array($0) })
  }

  deinit { base.deallocate() }

  /// Calls `body` with the bytes.
  public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    try body(UnsafeRawBufferPointer(start: base, count: count))
  }

  /// The bytes as an array (a copy).
  public var array: [UInt8] { withUnsafeBytes { Array($0) } }
}
