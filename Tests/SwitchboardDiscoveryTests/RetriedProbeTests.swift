import SwitchboardIO
import SwitchboardTestSupport
import Synchronization
import Testing

@testable import SwitchboardDiscovery

/// A failed probe of the system's DNS-SD daemon is believed for a while, not for the life of
/// the process: the rule (``ProbeMemory``) and the probe behind it (``RetriedProbe``), on a
/// clock the test moves.
@Suite(.onTestThreads) struct RetriedProbeTests {
  private let down = DiscoveryError.systemUnavailable.with("avahi-daemon does not answer")
  private let t0 = Deadline(nanoseconds: 1_000_000_000)

  @Test func aFailureIsBelievedUntilTheIntervalPassesThenForgotten() {
    var memory = ProbeMemory(retryAfter: .seconds(1))
    #expect(memory.answer(at: t0) == nil)
    memory.record(.failure(down), at: t0)
    #expect(memory.state == .failed(down, at: t0))
    guard case .failure(let error)? = memory.answer(at: t0.adding(.milliseconds(999))) else {
      Issue.record("a failure 999 ms old was not remembered")
      return
    }
    #expect(error == .systemUnavailable)
    #expect(memory.answer(at: t0.adding(.seconds(1))) == nil)
    #expect(memory.answer(at: t0.adding(.seconds(3600))) == nil)
  }

  @Test func aSuccessIsKeptAndALaterFailureDoesNotUndoIt() {
    var memory = ProbeMemory(retryAfter: .seconds(1))
    memory.record(.failure(down), at: t0)
    memory.record(.success(()), at: t0.adding(.seconds(2)))
    memory.record(.failure(down), at: t0.adding(.seconds(3)))
    #expect(memory.state == .succeeded)
    guard case .success? = memory.answer(at: t0.adding(.seconds(86_400))) else {
      Issue.record("a success was forgotten")
      return
    }
  }

  @Test func aFailedProbeRunsAgainAfterTheIntervalAndASuccessIsNotProbedAgain() {
    let clock = Mutex(t0)
    let runs = Atomic<Int>(0)
    let answers = Mutex<[Result<Void, DiscoveryError>]>([.failure(down), .success(())])
    let probe = RetriedProbe(retryAfter: .seconds(1), now: { clock.withLock { $0 } }) {
      runs.add(1, ordering: .relaxed)
      return answers.withLock { $0.isEmpty ? .failure(DiscoveryError.stopped) : $0.removeFirst() }
    }
    func advance(_ by: Duration) { clock.withLock { $0 = $0.adding(by) } }

    #expect(isFailure(probe.result()))
    #expect(runs.load(ordering: .relaxed) == 1)
    advance(.milliseconds(500))
    #expect(isFailure(probe.result()), "within the interval: the remembered failure")
    #expect(runs.load(ordering: .relaxed) == 1)
    advance(.milliseconds(500))
    #expect(!isFailure(probe.result()), "after the interval: probed again, and it answers now")
    #expect(runs.load(ordering: .relaxed) == 2)
    advance(.seconds(3600))
    #expect(!isFailure(probe.result()))
    #expect(runs.load(ordering: .relaxed) == 2, "a success is not probed again")
  }

  @Test func theSystemDaemonsProbeIsRetriedAfterASecond() {
    #expect(SystemDNSSD.probeRetryInterval == .seconds(1))
  }

  private func isFailure(_ result: Result<Void, DiscoveryError>) -> Bool {
    if case .failure = result { true } else { false }
  }
}
