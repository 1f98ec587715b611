import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The bytes glibc's allocator really gives a heap block (`malloc_usable_size`, which the Glibc
/// module does not import: looked up at run time), for the footprint tests' inventories. Their
/// bounds are glibc's size classes, so elsewhere (Darwin's allocator rounds differently)
/// ``available`` is false and those tests carry `.enabled(ifAvailable: HeapBlocks.available,
/// HeapBlocks.needed)`.
public enum HeapBlocks {
  /// Whether `malloc_usable_size` was found (glibc).
  public static var available: Bool { usableSizeCall != nil }

  /// The reason a footprint test is skipped elsewhere.
  public static let needed: Comment = "measures heap blocks with glibc's malloc_usable_size (Linux only)"

  /// The usable size of the heap block holding `object`; 0 where ``available`` is false.
  public static func usableSize(of object: AnyObject) -> Int {
    usableSizeCall.map { $0(Unmanaged.passUnretained(object).toOpaque()) } ?? 0
  }

  private typealias UsableSize = @convention(c) (UnsafeMutableRawPointer?) -> Int

  private static let usableSizeCall: UsableSize? = {
    #if os(Linux)
      // A null handle is RTLD_DEFAULT on Linux.
      guard let symbol = dlsym(nil, "malloc_usable_size") else { return nil }
      return unsafeBitCast(symbol, to: UsableSize.self)
    #else
      return nil
    #endif
  }()
}
