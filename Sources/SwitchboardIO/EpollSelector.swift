#if os(Linux)
  import Glibc
  import CSwitchboardShims
  import Synchronization

  /// The epoll backend: level-triggered, an eventfd for cross-thread wake-ups.
  final class EpollSelector: IOSelector {
    private let epfd: Int32
    /// Read by the loop thread only; ``wakeup()`` goes through ``wakeSlot``.
    private let wakeFD: Int32
    /// The eventfd while open, -1 once ``close()`` ran: a ``wakeup()`` from another thread
    /// after shutdown must not write 8 bytes into whatever reused the descriptor number.
    private let wakeSlot: Mutex<Int32>
    private var events: UnsafeMutablePointer<epoll_event>
    private let capacity = 256

    init() throws(IOError) {
      epfd = try syscallBlocking("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
      do {
        wakeFD = try syscallBlocking("eventfd") { sb_eventfd() }
      } catch {
        Glibc.close(epfd)
        throw error
      }
      wakeSlot = Mutex(wakeFD)
      events = .allocate(capacity: capacity)
      var ev = epoll_event()
      ev.events = sb_EPOLLIN
      ev.data.fd = wakeFD
      _ = try? syscallBlocking("epoll_ctl") { epoll_ctl(epfd, EPOLL_CTL_ADD, wakeFD, &ev) }
    }

    deinit { events.deallocate() }

    private func mask(_ interest: Interest) -> UInt32 {
      // EPOLLRDHUP only with read interest: level-triggered, it stays set after the peer's
      // FIN, so a descriptor that is not reading (paused, or past EOF) would spin the loop.
      var m: UInt32 = 0
      if interest.contains(.read) { m |= sb_EPOLLIN | sb_EPOLLRDHUP }
      if interest.contains(.write) { m |= sb_EPOLLOUT }
      return m
    }

    func register(fd: Int32, interest: Interest) throws(IOError) {
      var ev = epoll_event()
      ev.events = mask(interest)
      ev.data.fd = fd
      try syscallBlocking("epoll_ctl(ADD)") { epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) }
    }

    func reregister(fd: Int32, interest: Interest) throws(IOError) {
      var ev = epoll_event()
      ev.events = mask(interest)
      ev.data.fd = fd
      try syscallBlocking("epoll_ctl(MOD)") { epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &ev) }
    }

    func deregisterAndClose(fd: Int32) {
      // close() removes the descriptor from the epoll set (no dup()s exist).
      _ = Glibc.close(fd)
    }

    func wait(timeoutNanos: UInt64?, _ body: (Int32, ReadyEvents) -> Void) throws(IOError) {
      let timeoutMS: Int32
      if let ns = timeoutNanos {
        timeoutMS = Int32(min((ns + 999_999) / 1_000_000, UInt64(Int32.max)))
      } else {
        timeoutMS = -1
      }
      let result = try syscall("epoll_wait") { epoll_wait(epfd, events, Int32(capacity), timeoutMS) }
      guard case .processed(let n) = result else { return }
      for i in 0..<Int(n) {
        let ev = events[i]
        let fd = ev.data.fd
        if fd == wakeFD {
          _ = sb_eventfd_drain(wakeFD)
          continue
        }
        var ready: ReadyEvents = []
        if ev.events & (sb_EPOLLIN | sb_EPOLLRDHUP) != 0 { ready.insert(.readable) }
        if ev.events & sb_EPOLLOUT != 0 { ready.insert(.writable) }
        if ev.events & (sb_EPOLLERR | sb_EPOLLHUP) != 0 { ready.insert(.hangup) }
        body(fd, ready)
      }
    }

    func wakeup() {
      wakeSlot.withLock { fd in
        if fd >= 0 { _ = sb_eventfd_signal(fd) }
      }
    }

    func close() {
      wakeSlot.withLock { fd in
        if fd >= 0 { _ = Glibc.close(fd) }
        fd = -1
      }
      _ = Glibc.close(epfd)
    }
  }
#endif
