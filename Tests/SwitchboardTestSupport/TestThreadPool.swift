import Foundation

/// The threads the suites' tests run on (through ``OnTestThreadsTrait``), so that a test
/// may block — a socket read with a deadline, a semaphore, `usleep`, waiting for a child
/// process — without taking a thread from Swift's cooperative pool.
///
/// That pool has as many threads as cores (two on the CI machine), and on Linux the
/// libdispatch queues behind Foundation's pipes and `Process` share its threads: two tests
/// blocked on it starve every async client library, pipe reader and process monitor in the
/// run until they wake. A job here never waits for a thread: when every thread is busy a
/// new one starts, and a thread idle for ten seconds ends.
public final class TestThreadPool: TaskExecutor, @unchecked Sendable {
  // Safety: `jobs`, `head` and `idle` are only read and written with `condition` locked.
  /// The one pool of the test process.
  public static let shared = TestThreadPool()

  private let condition = NSCondition()
  /// Jobs not yet taken: `jobs[head...]`.
  private var jobs: [UnownedJob] = []
  private var head = 0
  /// Threads waiting for a job.
  private var idle = 0
  private static let marker = "SwitchboardTestThreadPool"

  private init() {}

  /// Whether the calling thread is one of the pool's.
  public static var isCurrentThread: Bool { Thread.current.threadDictionary[marker] != nil }

  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    condition.lock()
    jobs.append(job)
    // Every waiting job needs a waiting thread of its own, or it would queue behind a
    // job that may block for seconds.
    let needsThread = jobs.count - head > idle
    if !needsThread { condition.signal() }
    condition.unlock()
    if needsThread {
      let thread = Thread { [self] in work() }
      thread.stackSize = 8 << 20
      thread.start()
    }
  }

  private func work() {
    Thread.current.threadDictionary[Self.marker] = true
    condition.lock()
    while true {
      while head == jobs.count {
        idle += 1
        let signalled = condition.wait(until: Date(timeIntervalSinceNow: 10))
        idle -= 1
        if !signalled && head == jobs.count {
          condition.unlock()
          return
        }
      }
      let job = jobs[head]
      head += 1
      if head == jobs.count {
        jobs.removeAll(keepingCapacity: true)
        head = 0
      } else if head >= 1024 {
        jobs.removeFirst(head)
        head = 0
      }
      condition.unlock()
      job.runSynchronously(on: asUnownedTaskExecutor())
      condition.lock()
    }
  }
}
