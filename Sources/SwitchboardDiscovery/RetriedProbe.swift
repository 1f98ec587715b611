import SwitchboardIO
import Synchronization

/// What is remembered of a probe that may fail for a while and then succeed (a daemon that
/// was still starting, a Local Network permission granted after the first refusal): a
/// success for good, a failure only until `retryAfter` has passed since it was seen. A pure
/// value on an injected clock, so the rule is tested without waiting.
package struct ProbeMemory: Sendable {
  /// What was last seen.
  package enum State: Sendable, Equatable {
    /// Never probed.
    case unknown
    /// The probe succeeded; kept for good.
    case succeeded
    /// The probe failed at `at`; believed until `at + retryAfter`.
    case failed(DiscoveryError, at: Deadline)
  }

  /// How long a failure is believed.
  package let retryAfter: Duration
  /// What was last seen.
  package private(set) var state = State.unknown

  /// An empty memory that believes a failure for `retryAfter`.
  package init(retryAfter: Duration) { self.retryAfter = retryAfter }

  /// The remembered answer at `now`, or `nil` when the probe must run (never run, or its
  /// failure is `retryAfter` old).
  package func answer(at now: Deadline) -> Result<Void, DiscoveryError>? {
    switch state {
    case .unknown: nil
    case .succeeded: .success(())
    case .failed(let error, let at): now < at.adding(retryAfter) ? .failure(error) : nil
    }
  }

  /// Records a probe's `result`, seen at `now`. A success is never replaced (nothing asks
  /// again once the daemon answered, so a later failure is not this memory's to record).
  package mutating func record(_ result: Result<Void, DiscoveryError>, at now: Deadline) {
    switch (state, result) {
    case (.succeeded, _): break
    case (_, .success): state = .succeeded
    case (_, .failure(let error)): state = .failed(error, at: now)
    }
  }
}

/// A probe behind a ``ProbeMemory``: ``result()`` answers from memory while it holds, and
/// runs the probe again otherwise. The probe runs under the lock, so callers asking at the
/// same moment wait for one probe (a D-Bus round trip to avahi-daemon at most) instead of
/// each starting a browse of their own.
package final class RetriedProbe: Sendable {
  private let memory: Mutex<ProbeMemory>
  private let now: @Sendable () -> Deadline
  private let probe: @Sendable () -> Result<Void, DiscoveryError>

  /// A probe whose failures are believed for `retryAfter`; `now` is the clock (injected by
  /// tests).
  package init(
    retryAfter: Duration, now: @escaping @Sendable () -> Deadline = { Deadline.now() },
    probe: @escaping @Sendable () -> Result<Void, DiscoveryError>
  ) {
    memory = Mutex(ProbeMemory(retryAfter: retryAfter))
    self.now = now
    self.probe = probe
  }

  /// The remembered answer, or a fresh probe's.
  package func result() -> Result<Void, DiscoveryError> {
    memory.withLock { memory in
      if let known = memory.answer(at: now()) { return known }
      let fresh = probe()
      memory.record(fresh, at: now())
      return fresh
    }
  }
}
