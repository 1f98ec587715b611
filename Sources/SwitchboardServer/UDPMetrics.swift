import Synchronization

/// The UDP port's address proofs and member cap (docs/SECURITY.md, "UDP reflection and
/// amplification"), exported with the rest at `GET /metrics`.
public final class UDPMetrics: Sendable {
  /// Source addresses that proved they receive at their address (`/ok CODE`).
  public let proofs = Atomic<Int>(0)
  /// `/ok` datagrams whose code was missing, wrong or expired (answered with a new offer
  /// when the budget allows).
  public let proofsFailed = Atomic<Int>(0)
  /// Answers to unproven addresses (offers, auth refusals) not sent because they did not
  /// fit in three times what the address sent.
  public let unprovenAnswersWithheld = Atomic<Int>(0)
  /// Proofs refused because the server had `--max-udp-members` members.
  public let membersRefused = Atomic<Int>(0)
  /// UDP members now (proven addresses that receive their room).
  public let members = Atomic<Int>(0)

  public init() {}

  /// The counters in Prometheus text format.
  func prometheusText() -> String {
    let rows: [(String, String, Int)] = [
      ("switchboard_udp_proofs_total", "counter", proofs.load(ordering: .relaxed)),
      ("switchboard_udp_proofs_failed_total", "counter", proofsFailed.load(ordering: .relaxed)),
      (
        "switchboard_udp_unproven_answers_withheld_total", "counter",
        unprovenAnswersWithheld.load(ordering: .relaxed)
      ),
      ("switchboard_udp_members_refused_total", "counter", membersRefused.load(ordering: .relaxed)),
      ("switchboard_udp_members", "gauge", members.load(ordering: .relaxed)),
    ]
    return rows.map { "# TYPE \($0.0) \($0.1)\n\($0.0) \($0.2)\n" }.joined()
  }
}
