import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The portable backend: one DispatchSource per direction and descriptor, delivering
/// readiness to the loop thread through a semaphore.
///
/// A source that fires is suspended until the loop has handled the event, which turns
/// Dispatch's edge-like callbacks into the level-triggered contract of ``IOSelector``.
final class DispatchSelector: IOSelector {
  // Safety: dispatch sources are thread-safe objects; an Entry is only read or changed
  // under `state`'s lock.
  private struct Entry: @unchecked Sendable {
    var interest: Interest
    var read: DispatchSourceRead
    var write: DispatchSourceWrite
    var readArmed = false
    var writeArmed = false
  }
  private struct State {
    var entries: [Int32: Entry] = [:]
    var ready: [Int32: ReadyEvents] = [:]
  }
  private let queue = DispatchQueue(label: "switchboard.dispatch-selector")
  private let semaphore = DispatchSemaphore(value: 0)
  private let state = Mutex(State())

  func register(fd: Int32, interest: Interest) throws(IOError) {
    let read = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
    let write = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
    read.setEventHandler { [weak self] in self?.fired(fd, .readable) }
    write.setEventHandler { [weak self] in self?.fired(fd, .writable) }
    state.withLock { $0.entries[fd] = Entry(interest: [], read: read, write: write) }
    try reregister(fd: fd, interest: interest)
  }

  private func fired(_ fd: Int32, _ event: ReadyEvents) {
    state.withLock { state in
      guard var entry = state.entries[fd] else { return }
      if event == .readable, entry.readArmed {
        entry.read.suspend()
        entry.readArmed = false
      }
      if event == .writable, entry.writeArmed {
        entry.write.suspend()
        entry.writeArmed = false
      }
      state.entries[fd] = entry
      state.ready[fd, default: []].insert(event)
    }
    semaphore.signal()
  }

  func reregister(fd: Int32, interest: Interest) throws(IOError) {
    state.withLock { state in
      guard var entry = state.entries[fd] else { return }
      entry.interest = interest
      Self.arm(&entry)
      state.entries[fd] = entry
    }
  }

  /// Resumes or suspends the sources to match the interest (source not yet fired).
  private static func arm(_ entry: inout Entry) {
    let wantRead = entry.interest.contains(.read)
    let wantWrite = entry.interest.contains(.write)
    if wantRead != entry.readArmed {
      if wantRead { entry.read.resume() } else { entry.read.suspend() }
      entry.readArmed = wantRead
    }
    if wantWrite != entry.writeArmed {
      if wantWrite { entry.write.resume() } else { entry.write.suspend() }
      entry.writeArmed = wantWrite
    }
  }

  func deregisterAndClose(fd: Int32) {
    let removed = state.withLock { state -> Entry? in
      state.ready[fd] = nil
      return state.entries.removeValue(forKey: fd)
    }
    guard let entry = removed else {
      _ = Posix.close(fd)
      return
    }
    // Close only after both sources are cancelled; a cancelled source must be resumed
    // (a suspended one never runs its cancel handler).
    let remaining = CancelCounter()
    let done: @Sendable () -> Void = {
      if remaining.count.withLock({ $0 -= 1; return $0 }) == 0 { _ = Posix.close(fd) }
    }
    entry.read.setCancelHandler(handler: done)
    entry.write.setCancelHandler(handler: done)
    entry.read.cancel()
    entry.write.cancel()
    if !entry.readArmed { entry.read.resume() }
    if !entry.writeArmed { entry.write.resume() }
  }

  func wait(timeoutNanos: UInt64?, _ body: (Int32, ReadyEvents) -> Void) throws(IOError) {
    let hasReady = state.withLock { !$0.ready.isEmpty }
    if !hasReady {
      // Never longer than one sweep interval, so that the sweep below runs on an idle loop.
      let ns = min(timeoutNanos ?? Self.sweepIntervalNanos, Self.sweepIntervalNanos)
      _ = semaphore.wait(timeout: .now() + .nanoseconds(Int(ns)))
    }
    sweepIfDue()
    let ready = state.withLock { state -> [Int32: ReadyEvents] in
      let r = state.ready
      state.ready.removeAll(keepingCapacity: true)
      return r
    }
    for (fd, events) in ready {
      body(fd, events)
      // libdispatch sources report transitions, not levels: a descriptor that is still
      // readable (or writable) after the handler ran would not fire again. Ask the kernel
      // and report it again ourselves, which keeps the level-triggered contract.
      guard let interest = state.withLock({ $0.entries[fd]?.interest }) else { continue }
      let still = Self.levels(fd: fd, interest: interest)
      state.withLock { state in
        guard var entry = state.entries[fd] else { return }
        if still.isEmpty {
          // Re-arm what the handler still wants (it may have changed interest).
          Self.arm(&entry)
        } else {
          Self.reportByHand(still, fd: fd, entry: &entry, in: &state)
        }
        state.entries[fd] = entry
      }
    }
  }

  /// How often every registered descriptor's level is checked by hand (see ``sweepIfDue()``).
  static let sweepIntervalNanos: UInt64 = 100_000_000
  private var lastSweep = DispatchTime.now().uptimeNanoseconds

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
    var fds = state.withLock { state in
      state.entries.compactMap { fd, entry -> pollfd? in
        guard state.ready[fd] == nil else { return nil }
        let events = Self.pollEvents(entry.interest)
        return events == 0 ? nil : pollfd(fd: fd, events: events, revents: 0)
      }
    }
    guard !fds.isEmpty, poll(&fds, nfds_t(fds.count), 0) > 0 else { return }
    state.withLock { state in
      for pfd in fds where pfd.revents != 0 {
        guard var entry = state.entries[pfd.fd] else { continue }
        let found = Self.ready(revents: pfd.revents, interest: entry.interest)
        guard !found.isEmpty else { continue }
        Self.reportByHand(found, fd: pfd.fd, entry: &entry, in: &state)
        state.entries[pfd.fd] = entry
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

  /// Queues `events` for `fd` as if its sources had fired, keeping the sources that are
  /// reported by hand quiet until the loop has handled them, and arming the others.
  private static func reportByHand(_ events: ReadyEvents, fd: Int32, entry: inout Entry, in state: inout State) {
    state.ready[fd, default: []].formUnion(events)
    if events.contains(.readable), entry.readArmed { entry.read.suspend(); entry.readArmed = false }
    if events.contains(.writable), entry.writeArmed { entry.write.suspend(); entry.writeArmed = false }
    let wantWrite = entry.interest.contains(.write) && !events.contains(.writable)
    let wantRead = entry.interest.contains(.read) && !events.contains(.readable)
    if wantRead && !entry.readArmed { entry.read.resume(); entry.readArmed = true }
    if wantWrite && !entry.writeArmed { entry.write.resume(); entry.writeArmed = true }
  }

  func wakeup() { semaphore.signal() }

  func close() {
    let fds = state.withLock { Array($0.entries.keys) }
    for fd in fds { deregisterAndClose(fd: fd) }
  }
}

private final class CancelCounter: Sendable {
  let count = Mutex(2)
}
