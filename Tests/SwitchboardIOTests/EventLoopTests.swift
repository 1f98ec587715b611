import Dispatch
import SwitchboardIO
import Testing
import SwitchboardTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite(.onTestThreads)
struct EventLoopTests {
  @Test(arguments: SelectorBackend.available)
  func executeRunsTasksInSubmissionOrderOnTheLoopThread(backend: SelectorBackend) throws {
    let loop = try EventLoop(backend: backend)
    defer { loop.shutdownGracefully() }
    #expect(!loop.inEventLoop)

    // One submitting thread: the loop runs its tasks in exactly that order.
    let order = Locked<[Int]>([])
    let onLoopThread = Locked<[Bool]>([])
    for i in 0..<1000 {
      loop.execute {
        order.withLock { $0.append(i) }
        onLoopThread.withLock { $0.append(loop.inEventLoop) }
      }
    }
    #expect(eventually { order.value.count == 1000 })
    #expect(order.value == Array(0..<1000))
    #expect(onLoopThread.value.allSatisfy { $0 })

    // Four threads at once: each thread's tasks keep their relative order.
    let perThread = Locked<[Int: [Int]]>([:])
    DispatchQueue.concurrentPerform(iterations: 4) { thread in
      for i in 0..<250 {
        loop.execute { perThread.withLock { $0[thread, default: []].append(i) } }
      }
    }
    #expect(eventually { perThread.value.values.reduce(0) { $0 + $1.count } == 1000 })
    for thread in 0..<4 {
      #expect(perThread.value[thread] == Array(0..<250), "thread \(thread)")
    }
  }

  /// A task submitted after shutdown must not wake the closed loop through a descriptor
  /// number the process has since reused: the epoll loop's eventfd write (8 bytes, the
  /// integer 1) once landed in a test client's socket and reached the server as data.
  @Test(arguments: SelectorBackend.available)
  func aTaskSubmittedAfterShutdownWritesToNoReusedDescriptor(backend: SelectorBackend) throws {
    let loop = try EventLoop(backend: backend)
    loop.shutdownGracefully()
    // The descriptors the loop gave back are the lowest free ones: socket pairs take them.
    var pairs: [(Int32, Int32)] = []
    defer { for (a, b) in pairs { close(a); close(b) } }
    for _ in 0..<8 {
      var fds: [Int32] = [-1, -1]
      #if canImport(Glibc)
        let kind = Posix.streamType
      #else
        let kind = SOCK_STREAM
      #endif
      try #require(socketpair(AF_UNIX, kind, 0, &fds) == 0)
      pairs.append((fds[0], fds[1]))
    }
    loop.execute {}
    loop.execute {}
    var polls = pairs.flatMap { [pollfd(fd: $0.0, events: Int16(POLLIN), revents: 0), pollfd(fd: $0.1, events: Int16(POLLIN), revents: 0)] }
    let ready = poll(&polls, nfds_t(polls.count), 200)
    #expect(ready == 0, "a descriptor reused after shutdown became readable: \(polls.filter { $0.revents != 0 }.map(\.fd))")
  }

  @Test(arguments: SelectorBackend.available)
  func hasPendingTasksSaysWhetherMoreTasksWaitBehindTheRunningOne(backend: SelectorBackend) throws {
    let loop = try EventLoop(backend: backend)
    defer { loop.shutdownGracefully() }
    let seen = Locked<[String: Bool]>([:])
    loop.execute {
      seen.withLock { $0["alone"] = loop.hasPendingTasks }
      // Queued from inside a task: they form the next iteration's batch.
      for name in ["first", "second", "last"] {
        loop.execute { seen.withLock { $0[name] = loop.hasPendingTasks } }
      }
      seen.withLock { $0["after queueing"] = loop.hasPendingTasks }
    }
    #expect(eventually { seen.value.count == 5 })
    #expect(seen.value == ["alone": false, "after queueing": true, "first": true, "second": true, "last": false])
  }

  /// A loop that stalls past several deadlines fires them in deadline order, also when a
  /// timer with the earlier deadline was scheduled from another thread during the stall
  /// (it reaches the loop as a task): the loop takes in its tasks before it fires timers.
  /// On a loaded machine the test thread may be held up so long that the earlier timer is
  /// made after the stall, or with the later deadline; such an attempt proves nothing and
  /// is repeated (up to five times).
  @Test(arguments: SelectorBackend.available)
  func aTimerScheduledDuringAStallStillFiresInDeadlineOrder(backend: SelectorBackend) throws {
    for _ in 0..<5 {
      let loop = try EventLoop(backend: backend)
      defer { loop.shutdownGracefully() }
      let fired = Locked<[Int]>([])
      let inHeap = DispatchSemaphore(value: 0)
      let stalling = DispatchSemaphore(value: 0)
      let stallOver = Locked(false)
      let clock = ContinuousClock()
      let later = clock.now.advanced(by: .milliseconds(300))
      loop.schedule(after: .milliseconds(300)) { fired.withLock { $0.append(300) } }
      loop.execute { inHeap.signal() }  // after the timer's own task: the 300 ms timer is in
      #expect(inHeap.wait(timeout: .now() + 30) == .success)
      // The stall (a task that does not return for 500 ms), and the earlier timer made while
      // it lasts: its task waits behind the stall, until after the 300 ms deadline.
      loop.execute {
        stalling.signal()
        usleep(500_000)
        stallOver.withLock { $0 = true }
      }
      #expect(stalling.wait(timeout: .now() + 30) == .success)
      let scheduled = clock.now
      loop.schedule(after: .milliseconds(20)) { fired.withLock { $0.append(20) } }
      let heldUp = stallOver.value || scheduled.advanced(by: .milliseconds(40)) >= later
      #expect(eventually { fired.value.count == 2 })
      if heldUp { continue }
      #expect(fired.value == [20, 300], "fired \(fired.value)")
      return
    }
    Issue.record("the test thread was held up past the stall in five attempts")
  }

  @Test(arguments: SelectorBackend.available)
  func scheduledTasksFireNoSoonerThanTheirDelayInDeadlineOrder(backend: SelectorBackend) throws {
    let loop = try EventLoop(backend: backend)
    defer { loop.shutdownGracefully() }
    let fired = Locked<[(Int, Duration)]>([])
    // Each timer's deadline is its own call's time plus its delay, read inside the call: it
    // lies between the times read just before and just after it. A loaded machine may pause
    // the test thread anywhere, so the order is checked only for pairs whose deadline
    // windows do not overlap.
    var windows: [(delay: Int, earliest: ContinuousClock.Instant, latest: ContinuousClock.Instant)] = []
    for delay in [60, 20, 40] {
      let scheduledAt = ContinuousClock.now
      loop.schedule(after: .milliseconds(delay)) {
        fired.withLock { $0.append((delay, ContinuousClock.now - scheduledAt)) }
      }
      windows.append((delay, scheduledAt + .milliseconds(delay), ContinuousClock.now + .milliseconds(delay)))
    }
    #expect(eventually { fired.value.count == 3 })
    let order = fired.value.map(\.0)
    for a in windows {
      for b in windows where a.latest < b.earliest {
        #expect(
          order.firstIndex(of: a.delay)! < order.firstIndex(of: b.delay)!,
          "the \(a.delay) ms timer's deadline was before the \(b.delay) ms one's; fired \(order)")
      }
    }
    for (delay, elapsed) in fired.value {
      #expect(elapsed >= .milliseconds(delay), "\(delay) ms timer fired after \(elapsed)")
    }

    // The same from the loop's own thread (the timer is pushed directly).
    let local = Locked<Duration?>(nil)
    try onLoop(loop) {
      let scheduledAt = ContinuousClock.now
      loop.schedule(after: .milliseconds(30)) { local.withLock { $0 = ContinuousClock.now - scheduledAt } }
    }
    #expect(eventually { local.value != nil })
    #expect(local.value! >= .milliseconds(30))
  }

  @Test(arguments: SelectorBackend.available)
  func cancelledScheduledTaskDoesNotRun(backend: SelectorBackend) throws {
    let loop = try EventLoop(backend: backend)
    defer { loop.shutdownGracefully() }
    let ran = Locked<[String]>([])
    let cancelled = loop.schedule(after: .milliseconds(10)) { ran.withLock { $0.append("cancelled") } }
    cancelled.cancel()
    #expect(cancelled.isCancelled)
    // Cancelled from the loop thread, after being pushed onto the heap.
    try onLoop(loop) {
      let handle = loop.schedule(after: .milliseconds(10)) { ran.withLock { $0.append("cancelled on loop") } }
      handle.cancel()
    }
    // A later timer: once it fires, the earlier deadlines have long passed.
    loop.schedule(after: .milliseconds(40)) { ran.withLock { $0.append("marker") } }
    #expect(eventually { ran.value.contains("marker") })
    #expect(ran.value == ["marker"])
  }

  @Test(arguments: SelectorBackend.available)
  func repeatingTaskRunsUntilCancelled(backend: SelectorBackend) throws {
    let loop = try EventLoop(backend: backend)
    defer { loop.shutdownGracefully() }
    let count = Locked(0)
    let handle = loop.scheduleRepeating(every: .milliseconds(5)) { count.withLock { $0 += 1 } }
    #expect(eventually { count.value >= 5 })
    handle.cancel()
    // A run already under way may finish; after one loop round trip the count is final.
    try onLoop(loop) {}
    let final = count.value
    let marker = Signal()
    loop.schedule(after: .milliseconds(40)) { marker.fire() }
    #expect(marker.wait())
    #expect(count.value == final)

    // Cancelling from inside the task stops it at once.
    let selfCancelled = Locked(0)
    let box = Locked<Scheduled?>(nil)
    let done = Signal()
    try onLoop(loop) {
      box.withLock {
        $0 = loop.scheduleRepeating(every: .milliseconds(2)) {
          let runs = selfCancelled.withLock { count in
            count += 1
            return count
          }
          if runs == 3 { box.value?.cancel() }
        }
      }
      loop.schedule(after: .milliseconds(40)) { done.fire() }
    }
    #expect(done.wait())
    #expect(selfCancelled.value == 3)
  }

  @Test(arguments: SelectorBackend.available)
  func tasksQueuedFromInsideATaskRun(backend: SelectorBackend) throws {
    let loop = try EventLoop(backend: backend)
    defer { loop.shutdownGracefully() }
    let steps = Locked<[String]>([])
    loop.execute {
      steps.withLock { $0.append("outer") }
      loop.execute {
        steps.withLock { $0.append("inner") }
        loop.execute { steps.withLock { $0.append("innermost") } }
      }
      loop.schedule(after: .milliseconds(1)) { steps.withLock { $0.append("timer") } }
    }
    #expect(eventually { steps.value.count == 4 })
    // The timer may run before or after the queued tasks, depending on the loop's pace.
    #expect(steps.value.first == "outer")
    #expect(Set(steps.value) == ["outer", "inner", "innermost", "timer"])
    #expect(steps.value.firstIndex(of: "inner")! < steps.value.firstIndex(of: "innermost")!)
  }

  @Test(arguments: SelectorBackend.available)
  func shutdownGracefullyRunsQueuedTasksAndIsIdempotent(backend: SelectorBackend) throws {
    let loop = try EventLoop(backend: backend)
    let ran = Locked(false)
    loop.execute { ran.withLock { $0 = true } }
    loop.shutdownGracefully()
    #expect(ran.value)
    loop.shutdownGracefully()  // a second call returns at once
  }

  @Test(arguments: SelectorBackend.available)
  func shutdownClosesRegisteredSockets(backend: SelectorBackend) throws {
    let loop = try EventLoop(backend: backend)
    let (address, registered) = try onLoop(loop) {
      let listener = try TCPListener(address: SocketAddress(host: "127.0.0.1", port: 0), loop: loop) {
        fd, _ in _ = close(fd)
      }
      return (listener.localAddress, loop.registeredCount)
    }
    #expect(registered == 1)
    loop.shutdownGracefully()
    // The Dispatch backend closes once its sources are cancelled, so allow a moment.
    #expect(eventuallyRefused(address))
  }
}
