import SwitchboardIO

/// Where one unique name (the host's, or a service instance's) stands in RFC 6762 §8:
/// probed three times, then announced, then held; or given up.
///
/// ```
/// probing(0…probeCount) ──no conflict──▶ announcing(0…announceCount) ──▶ established
///     ▲  │ conflict: rename                       │ conflicting answer (§9)  │
///     │  └──────────────┐                         ▼                          │
///     └─────────── probing(0) ◀───────────────────┴──────────────────────────┘
///                 (renames > limit) ──▶ failed
/// ```
enum MDNSNameState: Sendable, Hashable {
  /// `sent` probes went out; the next one (or the end of probing) is due at `next`.
  case probing(sent: Int, next: Deadline)
  /// `sent` announcements went out; the next one is due at `next`.
  case announcing(sent: Int, next: Deadline)
  /// Probed and announced: answered and defended.
  case established
  /// Renamed too often: withdrawn for good.
  case failed

  /// When this name needs the timer, if it does.
  var next: Deadline? {
    switch self {
    case .probing(_, let next), .announcing(_, let next): next
    case .established, .failed: nil
    }
  }

  /// Whether the name is ours to answer for (probing won, announcing or done).
  var isAnswerable: Bool {
    switch self {
    case .announcing, .established: true
    case .probing, .failed: false
    }
  }

  /// Whether the name is being probed.
  var isProbing: Bool {
    if case .probing = self { return true }
    return false
  }

  /// Whether `self → next` is a transition the diagram allows.
  func allows(_ next: MDNSNameState) -> Bool {
    switch (self, next) {
    case (.failed, _): false
    case (_, .failed): true
    case (.probing, .probing), (.probing, .announcing): true
    case (.announcing, .announcing), (.announcing, .established), (.announcing, .probing): true
    case (.established, .probing), (.established, .announcing): true
    default: false
    }
  }
}
