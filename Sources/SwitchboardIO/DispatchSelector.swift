import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The portable backend: a DispatchSource per descriptor for reading, and one for writing
/// made the first time the descriptor waits to write, delivering readiness to the loop
/// thread through a semaphore.
///
/// A source that fires is suspended until the loop has handled the event, which turns
/// Dispatch's edge-like callbacks into the level-triggered contract of ``IOSelector``.
final class DispatchSelector: IOSelector {
  // Safety: dispatch sources are thread-safe objects; an Entry is only read or changed
  // under `state`'s lock.
  private struct Entry: @unchecked Sendable {
    // The small fields first: Swift lays a struct out in declaration order, and the table
    // holds one Entry per descriptor number (56 bytes this way, 96 with two existentials).
    var readArmed = false
    var writeArmed = false
    /// Fired (or found by hand) and not yet handed to the loop. Non-empty exactly while
    /// the descriptor is in `State.readyList` for it.
    var pending: ReadyEvents = []
    var read: DispatchSourceRead
    /// Made by ``resumeWrite(_:fd:)`` the first time the descriptor wants `.write`: most
    /// connections never wait to write (a send that fits the socket buffer needs no
    /// source), and a source with its handler is ~500 bytes of libdispatch's heap.
    var write: WriteSource?

    init(read: DispatchSourceRead) { self.read = read }

    /// `body` on this entry in place: `entries[i]?.apply(body)` reaches the entry through
    /// the array and the optional without copying it (a copy retains and releases its
    /// sources: the `!= nil` test and the force-unwrap it replaces cost ~40 instructions).
    mutating func apply<R>(_ body: (inout Entry) -> R) -> R { body(&self) }
  }
  /// A write source, boxed: an ``Entry`` holds a reference (8 bytes) where the existential
  /// would take 40 in every entry, and only descriptors that once waited to write pay for it.
  private final class WriteSource: @unchecked Sendable {
    // Safety: as Entry's (the source is thread-safe; the box never changes).
    let source: DispatchSourceWrite
    init(_ source: DispatchSourceWrite) { self.source = source }
  }
  private struct State {
    /// `entries[fd]`: the sources of `fd`, `nil` when it is not registered. Indexed by the
    /// descriptor's number as ``DescriptorTable`` is, for its reasons: the numbers in use
    /// are dense, and an index costs less than hashing on every event.
    var entries: [Entry?] = []
    /// The descriptors with `pending` events, in the order they became ready. A number
    /// closed and registered again meanwhile may appear twice: its entry's `pending`, taken
    /// once, decides.
    var readyList: [Int32] = []

    /// Runs `body` on `fd`'s entry in place (no copy of the sources), or returns `nil`
    /// when `fd` is not registered.
    mutating func update<R>(_ fd: Int32, _ body: (inout Entry) -> R) -> R? {
      let index = Int(fd)
      guard index >= 0, index < entries.count else { return nil }
      return entries[index]?.apply(body)
    }

    mutating func insert(_ entry: Entry, fd: Int32) {
      let index = Int(fd)
      entries.grow(toHold: index, with: nil)
      entries[index] = entry
    }

    mutating func remove(fd: Int32) -> Entry? {
      let index = Int(fd)
      guard index >= 0, index < entries.count else { return nil }
      defer { entries[index] = nil }
      return entries[index]
    }
  }
  private let queue = DispatchQueue(label: "switchboard.dispatch-selector")
  private let semaphore = DispatchSemaphore(value: 0)
  private let state = Mutex(State())
  /// `interests[fd]`: what `fd` is watched for, `nil` when it is not registered. Written
  /// and read on the loop thread only (every method but ``wakeup()`` runs there; the
  /// sources' handlers never read it), so the loop reads it without taking the lock.
  /// This and the loop-thread-only arrays below are never accessed overlapping themselves,
  /// so their exclusivity checks are off (each is a run-time call on every event, as in
  /// ``EventLoop``).
  @exclusivity(unchecked) private var interests: [Interest?] = []
  /// The list the loop handled last, emptied: swapped with `State.readyList` by the next
  /// ``wait(timeoutNanos:_:)`` so that neither allocates once both have grown (loop thread only).
  @exclusivity(unchecked) private var spareList: [Int32] = []
  /// The events taken from the entries in one ``wait(timeoutNanos:_:)`` (loop thread only).
  @exclusivity(unchecked) private var taken: [(fd: Int32, events: ReadyEvents)] = []
  /// The ``sweepIfDue()`` descriptors, kept between sweeps (loop thread only).
  @exclusivity(unchecked) private var sweepFDs: [pollfd] = []

  private func interest(_ fd: Int32) -> Interest? {
    let index = Int(fd)
    guard index >= 0, index < interests.count else { return nil }
    return interests[index]
  }

  func register(fd: Int32, interest: Interest) throws(IOError) {
    let index = Int(fd)
    precondition(index >= 0, "DispatchSelector: negative descriptor \(fd)")
    interests.grow(toHold: index, with: nil)
    interests[index] = interest
    let read = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
    read.setEventHandler { [weak self] in self?.fired(fd, .readable) }
    state.withLock { state in
      state.insert(Entry(read: read), fd: fd)
      _ = state.update(fd) { arm(&$0, interest: interest, fd: fd) }
    }
  }

  private func fired(_ fd: Int32, _ event: ReadyEvents) {
    let listed = state.withLock { state -> Bool in
      let first = state.update(fd) { entry -> Bool in
        if event == .readable, entry.readArmed {
          entry.read.suspend()
          entry.readArmed = false
        }
        if event == .writable, entry.writeArmed {
          entry.write?.source.suspend()
          entry.writeArmed = false
        }
        let first = entry.pending.isEmpty
        entry.pending.insert(event)
        return first
      }
      guard first == true else { return false }
      state.readyList.append(fd)
      return state.readyList.count == 1
    }
    // One signal when the list becomes non-empty: the loop either finds the list non-empty
    // before it waits or consumes this signal; later events join the same wake-up.
    if listed { semaphore.signal() }
  }

  func reregister(fd: Int32, interest: Interest) throws(IOError) {
    guard self.interest(fd) != nil else { return }
    interests[Int(fd)] = interest
    state.withLock { state in
      _ = state.update(fd) { arm(&$0, interest: interest, fd: fd) }
    }
  }

  /// Resumes or suspends the sources to match `interest` (source not yet fired).
  private func arm(_ entry: inout Entry, interest: Interest, fd: Int32) {
    let wantRead = interest.contains(.read)
    let wantWrite = interest.contains(.write)
    if wantRead != entry.readArmed {
      if wantRead { entry.read.resume() } else { entry.read.suspend() }
      entry.readArmed = wantRead
    }
    if wantWrite != entry.writeArmed {
      if wantWrite { resumeWrite(&entry, fd: fd) } else { entry.write?.source.suspend() }
      entry.writeArmed = wantWrite
    }
  }

  /// Resumes `entry`'s write source, making it first if the descriptor never wanted to
  /// write before (a new source starts suspended, as a suspended one does).
  private func resumeWrite(_ entry: inout Entry, fd: Int32) {
    if entry.write == nil {
      let write = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
      write.setEventHandler { [weak self] in self?.fired(fd, .writable) }
      entry.write = WriteSource(write)
    }
    entry.write?.source.resume()
  }

  func deregisterAndClose(fd: Int32) {
    if self.interest(fd) != nil { interests[Int(fd)] = nil }
    guard let entry = state.withLock({ $0.remove(fd: fd) }) else {
      _ = Posix.close(fd)
      return
    }
    // Close only after every source is cancelled; a cancelled source must be resumed
    // (a suspended one never runs its cancel handler).
    let remaining = CancelCounter(entry.write == nil ? 1 : 2)
    let done: @Sendable () -> Void = {
      if remaining.count.withLock({ $0 -= 1; return $0 }) == 0 { _ = Posix.close(fd) }
    }
    entry.read.setCancelHandler(handler: done)
    entry.read.cancel()
    if !entry.readArmed { entry.read.resume() }
    if let write = entry.write?.source {
      write.setCancelHandler(handler: done)
      write.cancel()
      if !entry.writeArmed { write.resume() }
    }
  }

  func wait(timeoutNanos: UInt64?, _ body: (Int32, ReadyEvents) -> Void) throws(IOError) {
    let hasReady = state.withLock { !$0.readyList.isEmpty }
    if !hasReady {
      // Never longer than one sweep interval, so that the sweep below runs on an idle loop.
      let ns = min(timeoutNanos ?? Self.sweepIntervalNanos, Self.sweepIntervalNanos)
      _ = semaphore.wait(timeout: .now() + .nanoseconds(Int(ns)))
    }
    sweepIfDue()
    // The list and every listed descriptor's events, taken in one hold of the lock.
    var list = spareList
    spareList = []
    state.withLock { state in
      swap(&list, &state.readyList)
      for fd in list {
        let events = state.update(fd) { entry -> ReadyEvents in
          defer { entry.pending = [] }
          return entry.pending
        }
        if let events, !events.isEmpty { taken.append((fd, events)) }
      }
    }
    list.removeAll(keepingCapacity: true)
    spareList = list
    for (fd, events) in taken {
      body(fd, events)
      // libdispatch sources report transitions, not levels: a descriptor that is still
      // readable (or writable) after the handler ran would not fire again. Ask the kernel
      // and report it again ourselves, which keeps the level-triggered contract.
      guard let interest = self.interest(fd) else { continue }
      let still = Self.levels(fd: fd, interest: interest)
      state.withLock { state in
        let first = state.update(fd) { entry -> Bool in
          if still.isEmpty {
            // Re-arm what the handler still wants (it may have changed interest).
            arm(&entry, interest: interest, fd: fd)
            return false
          }
          return reportByHand(still, interest: interest, fd: fd, entry: &entry)
        }
        // Listed again for the next wait, which finds the list non-empty and does not block.
        if first == true { state.readyList.append(fd) }
      }
    }
    taken.removeAll(keepingCapacity: true)
  }

  /// How often every registered descriptor's level is checked by hand (see ``sweepIfDue()``).
  static let sweepIntervalNanos: UInt64 = 100_000_000
  @exclusivity(unchecked) private var lastSweep = DispatchTime.now().uptimeNanoseconds

  /// A source that misses a transition would leave its descriptor unreported for good: on
  /// Linux, libdispatch delivers a socket's error or hang-up to the read source, and while
  /// that one is suspended (reading paused by backpressure) a peer's reset reached neither
  /// handler — seen as a connection that stayed open after its peer was gone, about once in
  /// 200 resets while writing. So at most every ``sweepIntervalNanos`` the loop polls every
  /// descriptor for its interest itself: a missed level is reported within that bound. One
  /// `poll` over all descriptors, on the loop thread, only on this backend.
  private func sweepIfDue() {
    let now = DispatchTime.now().uptimeNanoseconds
    guard now &- lastSweep >= Self.sweepIntervalNanos else { return }
    lastSweep = now
    var fds = sweepFDs
    sweepFDs = []
    defer {
      fds.removeAll(keepingCapacity: true)
      sweepFDs = fds
    }
    state.withLock { state in
      for index in state.entries.indices where state.entries[index]?.pending.isEmpty == true {
        let events = Self.pollEvents(interests[index] ?? [])
        if events != 0 { fds.append(pollfd(fd: Int32(index), events: events, revents: 0)) }
      }
    }
    guard !fds.isEmpty, poll(&fds, nfds_t(fds.count), 0) > 0 else { return }
    state.withLock { state in
      for pfd in fds where pfd.revents != 0 {
        guard let interest = self.interest(pfd.fd) else { continue }
        let first = state.update(pfd.fd) { entry -> Bool in
          let found = Self.ready(revents: pfd.revents, interest: interest)
          guard !found.isEmpty else { return false }
          return reportByHand(found, interest: interest, fd: pfd.fd, entry: &entry)
        }
        if first == true { state.readyList.append(pfd.fd) }
      }
    }
  }

  private static func pollEvents(_ interest: Interest) -> Int16 {
    var events: Int16 = 0
    if interest.contains(.read) { events |= Int16(POLLIN) }
    if interest.contains(.write) { events |= Int16(POLLOUT) }
    return events
  }

  /// What `revents` means for a descriptor with `interest`: an error or hang-up is
  /// readable (the read that follows reports it).
  private static func ready(revents: Int16, interest: Interest) -> ReadyEvents {
    var found: ReadyEvents = []
    if revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 && interest.contains(.read) { found.insert(.readable) }
    if revents & Int16(POLLOUT) != 0 && interest.contains(.write) { found.insert(.writable) }
    return found
  }

  /// The readiness of `fd` for `interest` now, asked of the kernel.
  private static func levels(fd: Int32, interest: Interest) -> ReadyEvents {
    var pfd = pollfd(fd: fd, events: pollEvents(interest), revents: 0)
    guard pfd.events != 0, poll(&pfd, 1, 0) > 0 else { return [] }
    return ready(revents: pfd.revents, interest: interest)
  }

  /// Marks `events` pending for `fd` as if its sources had fired, keeping the sources that
  /// are reported by hand quiet until the loop has handled them, and arming the others.
  /// Returns whether `fd` must be added to `State.readyList` (it had nothing pending).
  private func reportByHand(
    _ events: ReadyEvents, interest: Interest, fd: Int32, entry: inout Entry
  ) -> Bool {
    let first = entry.pending.isEmpty
    entry.pending.formUnion(events)
    if events.contains(.readable), entry.readArmed { entry.read.suspend(); entry.readArmed = false }
    if events.contains(.writable), entry.writeArmed { entry.write?.source.suspend(); entry.writeArmed = false }
    let wantWrite = interest.contains(.write) && !events.contains(.writable)
    let wantRead = interest.contains(.read) && !events.contains(.readable)
    if wantRead && !entry.readArmed { entry.read.resume(); entry.readArmed = true }
    if wantWrite && !entry.writeArmed { resumeWrite(&entry, fd: fd); entry.writeArmed = true }
    return first
  }

  func wakeup() { semaphore.signal() }

  func close() {
    for index in interests.indices where interests[index] != nil { deregisterAndClose(fd: Int32(index)) }
  }
}

/// How many of a closed descriptor's sources have not run their cancel handler yet.
private final class CancelCounter: Sendable {
  let count: Mutex<Int>
  init(_ sources: Int) { count = Mutex(sources) }
}
