import CSwitchboardShims

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// How the process's heap gives memory back after large messages (glibc only; nothing
/// elsewhere). `switchboard serve` applies ``returnLargeBuffersAtOnce(threshold:)`` at start;
/// an embedding app may call it too.
///
/// Why: glibc raises its mmap threshold after freeing a large mapped block (up to 32 MiB) and
/// its trim threshold to twice that. From then on a 16 MiB frame's buffers come from a loop
/// thread's heap, and when they are freed into the top of that heap — whether they land
/// there depends on the order of frees, so on timing — neither `free` (below the raised
/// trim threshold) nor `malloc_trim` (which does not trim the top of a thread's heap) gives
/// them back: two of them stayed resident after a burst in CI. A fixed threshold keeps every
/// block of `threshold` bytes or more in a mapping of its own, unmapped when freed.
public enum HeapPolicy {
  /// Bytes of the process's heap in use, over all of glibc's arenas (`mallinfo2().uordblks`;
  /// large blocks in mappings of their own are not counted); 0 where unknown. A walk of the
  /// allocator's free lists under its locks: for a gauge, not for a hot path.
  public static var bytesInUse: Int { Int(sb_heap_bytes_in_use()) }

  /// The threshold `switchboard serve` uses: 1 MiB. Chat messages are far smaller; buffers
  /// this large are the rare large frame, for which a map and an unmap are cheap.
  public static let largeBufferThreshold = 1 << 20

  /// Serves allocations of `threshold` bytes or more from mappings of their own, unless the
  /// environment already sets glibc's `mmap_threshold` tunable (`GLIBC_TUNABLES`), which is
  /// then respected. Returns whether the policy was applied.
  @discardableResult
  public static func returnLargeBuffersAtOnce(threshold: Int = largeBufferThreshold) -> Bool {
    if let tunables = getenv("GLIBC_TUNABLES").map({ String(cString: $0) }), tunables.contains("mmap_threshold") {
      return false
    }
    return sb_set_mmap_threshold(threshold) == 1
  }
}
