/// A timer in the heap: when it fires next, how often it repeats (`nil`: once), and what it runs.
struct TimerEntry {
  var deadline: Deadline
  var interval: Duration?
  let handle: Scheduled
  let task: () -> Void
}

/// A timer scheduled from another thread, on its way to the loop's heap.
struct IncomingTimer: Sendable {
  let deadline: Deadline
  let interval: Duration?
  let handle: Scheduled
  let task: @Sendable () -> Void
}

/// A binary min-heap of timers by deadline.
struct TimerHeap {
  private var items: [TimerEntry] = []

  var nextDeadline: Deadline? { items.first?.deadline }

  /// Timers in the heap that are not cancelled (a walk over the heap: for metrics).
  var liveCount: Int { items.reduce(0) { $0 + ($1.handle.isCancelled ? 0 : 1) } }

  /// Drops cancelled timers (and what their closures hold) before their deadline: a
  /// timer re-armed on every read, or cancelled when its connection closes, would
  /// otherwise stay until it was due — with many connections, an ever longer heap.
  mutating func removeCancelled() {
    let before = items.count
    items.removeAll { $0.handle.isCancelled }
    guard items.count != before else { return }
    // Floyd's heap construction: sift every parent down, from the last one up.
    var start = items.count / 2
    while start > 0 {
      start -= 1
      siftDown(from: start)
    }
  }

  mutating func push(_ entry: TimerEntry) {
    items.append(entry)
    var i = items.count - 1
    while i > 0 {
      let parent = (i - 1) / 2
      if items[parent].deadline <= items[i].deadline { break }
      items.swapAt(parent, i)
      i = parent
    }
  }

  mutating func popExpired(now: Deadline) -> TimerEntry? {
    guard let first = items.first, first.deadline <= now else { return nil }
    let last = items.removeLast()
    if items.isEmpty { return first }
    items[0] = last
    siftDown(from: 0)
    return first
  }

  private mutating func siftDown(from index: Int) {
    var i = index
    while true {
      let l = 2 * i + 1, r = l + 1
      var smallest = i
      if l < items.count && items[l].deadline < items[smallest].deadline { smallest = l }
      if r < items.count && items[r].deadline < items[smallest].deadline { smallest = r }
      if smallest == i { break }
      items.swapAt(i, smallest)
      i = smallest
    }
  }
}
