/// An event loop's registrations: the handler of each watched descriptor and what it is
/// watched for, in arrays indexed by the descriptor's number.
///
/// The kernel hands out the lowest free descriptor number, so the numbers in use are dense
/// and an array indexed by them is both the cheapest look-up on every readiness event (an
/// index instead of hashing an `Int32` and probing) and smaller: 17 bytes per number
/// (a 16-byte handler, a 1-byte interest) where the two dictionaries it replaces took 25
/// per bucket, kept at most 3/4 full. The arrays grow by doubling to the highest number
/// seen and are not shrunk (docs/BENCHMARKS.md, "Memory per idle connection").
struct DescriptorTable {
  /// `handlers[fd]`: who handles `fd`, `nil` when it is not registered.
  private var handlers: [Selectable?] = []
  /// `interests[fd]`: what `fd` is watched for (meaningful only while registered).
  private var interests: [Interest] = []
  /// The number of registered descriptors.
  private(set) var count = 0

  /// Registers `handler` for `fd` (replacing any handler it had).
  mutating func insert(_ handler: Selectable, fd: Int32, interest: Interest) {
    let index = Int(fd)
    precondition(index >= 0, "DescriptorTable: negative descriptor \(fd)")
    handlers.grow(toHold: index, with: nil)
    interests.grow(toHold: index, with: [])
    if handlers[index] == nil { count += 1 }
    handlers[index] = handler
    interests[index] = interest
  }

  /// Forgets `fd`; a no-op when it is not registered.
  mutating func remove(fd: Int32) {
    let index = Int(fd)
    guard index >= 0, index < handlers.count, handlers[index] != nil else { return }
    handlers[index] = nil
    interests[index] = []
    count -= 1
  }

  /// The handler of `fd`, `nil` when it is not registered.
  @inline(__always)
  func handler(_ fd: Int32) -> Selectable? {
    let index = Int(fd)
    guard index >= 0, index < handlers.count else { return nil }
    return handlers[index]
  }

  /// What `fd` is watched for, `nil` when it is not registered.
  @inline(__always)
  func interest(_ fd: Int32) -> Interest? {
    let index = Int(fd)
    guard index >= 0, index < handlers.count, handlers[index] != nil else { return nil }
    return interests[index]
  }

  /// Changes what a registered `fd` is watched for.
  @inline(__always)
  mutating func setInterest(_ interest: Interest, fd: Int32) {
    let index = Int(fd)
    guard index >= 0, index < handlers.count, handlers[index] != nil else { return }
    interests[index] = interest
  }

  /// Every registered descriptor, lowest first.
  var descriptors: [Int32] {
    handlers.indices.compactMap { handlers[$0] == nil ? nil : Int32($0) }
  }
}
