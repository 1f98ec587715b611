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

@Suite(.onTestThreads) struct EventuallyTests {
  @Test func aSynchronousWaitReturnsAtOnceWhenTheConditionHoldsAndFalseAtTheDeadline() {
    #expect(eventually(timeout: .seconds(5)) { true })
    let clock = ContinuousClock()
    let start = clock.now
    #expect(!eventually(timeout: .milliseconds(50)) { false })
    #expect(start.duration(to: clock.now) >= .milliseconds(50))
  }

  @Test func anAsyncWaitThrowsATestFailureNamingWhatItWaitedFor() async throws {
    try await eventually(timeout: .seconds(5), "nothing") { true }
    let failure = await #expect(throws: TestFailure.self) {
      try await eventually(timeout: .milliseconds(50), "the impossible") { false }
    }
    #expect(failure?.description.contains("the impossible") == true)
  }

  @Test func aWaitSeesAConditionAnotherThreadMakesTrue() async throws {
    let flag = Locked(false)
    Thread.detachNewThread {
      usleep(20_000)
      flag.withLock { $0 = true }
    }
    try await eventually("the flag") { flag.value }
  }
}

@Suite(.onTestThreads) struct SeededGeneratorTests {
  @Test func itIsSplitMix64() {
    // The reference implementation's first outputs for seed 0.
    var generator = SeededGenerator(seed: 0)
    #expect(generator.next() == 0xE220_A839_7B1D_CDAF)
    #expect(generator.next() == 0x6E78_9E6A_A1B9_65F4)
  }

  @Test func theSameSeedGivesTheSameSequence() {
    var a = SeededGenerator(seed: 42)
    var b = SeededGenerator(seed: 42)
    var c = SeededGenerator(seed: 43)
    let first = (0..<100).map { _ in a.next() }
    #expect(first == (0..<100).map { _ in b.next() })
    #expect(first != (0..<100).map { _ in c.next() })
  }

  @Test func randomSplitsCoverTheBytesInOrderWithinTheChunkLimit() {
    var generator = SeededGenerator(seed: 7)
    let bytes = pattern(count: 1000, seed: 3)
    for maxChunk in [1, 2, 17, 2000] {
      let chunks = bytes.randomSplits(maxChunk: maxChunk, using: &generator)
      #expect(Array(chunks.joined()) == bytes)
      #expect(chunks.allSatisfy { (1...maxChunk).contains($0.count) })
    }
    #expect(firstDifference(bytes, bytes) == nil)
    #expect(firstDifference(bytes, bytes.dropLast() + [bytes.last! &+ 1]) == 999)
    #expect(firstDifference(bytes, Array(bytes.prefix(10))) == 10)
  }
}

@Suite(.onTestThreads) struct ChildProcessTests {
  @Test func itCollectsOutputFeedsInputAndReportsTheExitStatus() async throws {
    let cat = try ChildProcess(command: ["sh", "-c", "cat; echo done >&2; exit 3"])
    cat.write("hello\n")
    try await cat.waitForOutput("hello\n")
    cat.closeInput()
    #expect(try await cat.waitForExit() == 3)
    #expect(cat.stderr == "done\n")
  }

  @Test func stopKillsItByItsPID() throws {
    let sleeper = try ChildProcess(command: ["sleep", "60"])
    #expect(sleeper.isRunning)
    sleeper.stop()
    #expect(!sleeper.isRunning)
    #expect(sleeper.exitStatus == SIGKILL)
  }

  @Test func runToolReturnsStdoutAndThrowsWithStderrOnFailure() throws {
    #expect(try runTool(["sh", "-c", "echo out; echo err >&2"]) == "out\n")
    let failure = #expect(throws: TestFailure.self) { try runTool(["sh", "-c", "echo broken >&2; exit 1"]) }
    #expect(failure?.description.contains("broken") == true)
    #expect(commandSucceeds(["true"]))
    #expect(!commandSucceeds(["false"]))
  }
}
