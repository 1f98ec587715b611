import Foundation
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The trait every suite carries really moves tests off the cooperative pool.
@Suite(.onTestThreads) struct TestThreadPoolTests {
  @Test func aSynchronousTestRunsOnTheTestThreads() {
    #expect(TestThreadPool.isCurrentThread)
  }

  @Test func anAsyncTestStaysOnThemAcrossSuspensionsAndInItsChildTasks() async throws {
    #expect(TestThreadPool.isCurrentThread)
    try await Task.sleep(for: .milliseconds(5))
    #expect(TestThreadPool.isCurrentThread)
    async let child = TestThreadPool.isCurrentThread
    #expect(await child)
    // An unstructured task (like a library's own) runs on the cooperative pool.
    #expect(await Task { TestThreadPool.isCurrentThread }.value == false)
  }

  @Test func blockedJobsDoNotQueueBehindEachOther() async {
    // Each job blocks its thread until all eight run: queued behind one another they
    // never would (the deadline makes that a failure, not a hang).
    let started = Locked(0)
    let allRan = Locked<[Bool]>([])
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<8 {
        group.addTask {
          started.withLock { $0 += 1 }
          let ok = eventually(timeout: .seconds(30)) { started.value == 8 }
          allRan.withLock { $0.append(ok) }
        }
      }
    }
    #expect(allRan.value == Array(repeating: true, count: 8))
  }

  @Test func theCooperativePoolRunsWhileTestThreadsBlock() async {
    // Four test threads block until a task on the cooperative pool has run: were the
    // test threads the pool's (two threads here), it could not run until they stopped.
    let answered = Locked(false)
    let sawIt = Locked<[Bool]>([])
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<4 {
        group.addTask {
          let ok = eventually(timeout: .seconds(30)) { answered.value }
          sawIt.withLock { $0.append(ok) }
        }
      }
      group.addTask {
        await Task { answered.withLock { $0 = true } }.value
      }
    }
    #expect(sawIt.value == Array(repeating: true, count: 4))
  }
}
