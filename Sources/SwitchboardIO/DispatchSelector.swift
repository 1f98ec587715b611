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
      _ = Glibc_close(fd)
      return
    }
    // Close only after both sources are cancelled; a cancelled source must be resumed
    // (a suspended one never runs its cancel handler).
    let remaining = CancelCounter()
    let done: @Sendable () -> Void = {
      if remaining.count.withLock({ $0 -= 1; return $0 }) == 0 { _ = Glibc_close(fd) }
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
      if let ns = timeoutNanos {
        _ = semaphore.wait(timeout: .now() + .nanoseconds(Int(min(ns, UInt64(Int.max)))))
      } else {
        semaphore.wait()
      }
    }
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
      let interest = state.withLock { $0.entries[fd]?.interest }
      guard let interest else { continue }
      var pfd = pollfd(fd: fd, events: 0, revents: 0)
      if interest.contains(.read) { pfd.events |= Int16(POLLIN) }
      if interest.contains(.write) { pfd.events |= Int16(POLLOUT) }
      var still: ReadyEvents = []
      if pfd.events != 0 && poll(&pfd, 1, 0) > 0 {
        if pfd.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 && interest.contains(.read) { still.insert(.readable) }
        if pfd.revents & Int16(POLLOUT) != 0 && interest.contains(.write) { still.insert(.writable) }
      }
      state.withLock { state in
        guard var entry = state.entries[fd] else { return }
        if still.isEmpty {
          // Re-arm what the handler still wants (it may have changed interest).
          Self.arm(&entry)
        } else {
          state.ready[fd, default: []].formUnion(still)
          // Keep the sources that are reported by hand quiet until then.
          if still.contains(.readable), entry.readArmed { entry.read.suspend(); entry.readArmed = false }
          if still.contains(.writable), entry.writeArmed { entry.write.suspend(); entry.writeArmed = false }
          let wantWrite = entry.interest.contains(.write) && !still.contains(.writable)
          let wantRead = entry.interest.contains(.read) && !still.contains(.readable)
          if wantRead && !entry.readArmed { entry.read.resume(); entry.readArmed = true }
          if wantWrite && !entry.writeArmed { entry.write.resume(); entry.writeArmed = true }
        }
        state.entries[fd] = entry
      }
    }
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
