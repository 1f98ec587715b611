import SwitchboardDNS
import SwitchboardIO

/// A query whose TC bit said that more known answers follow (RFC 6762 §7.2): held for
/// 400–500 ms while later packets from the same querier add their questions and known
/// answers, then answered as one query, with suppression from all of them.
struct MDNSDeferredQuery: Sendable {
  /// Who asked: the querier's address and the interface the packets came in on.
  struct Source: Sendable, Hashable {
    let address: SocketAddress
    let interface: UInt32
  }

  /// The packets so far, merged: every distinct question, every known answer, every
  /// proposed record of a probe.
  private(set) var query: DNSMessage
  /// When to answer.
  let due: Deadline
  /// Questions plus records kept; past it later packets add nothing.
  let maxRecords: Int
  private var questions: Set<DNSQuestion>

  /// Holds `first` (a query with TC set) until `due`.
  init(_ first: DNSMessage, due: Deadline, maxRecords: Int) {
    self.due = due
    self.maxRecords = maxRecords
    query = DNSMessage(id: first.id, flags: first.flags)
    questions = []
    absorb(first)
  }

  /// Adds the next packet from the same querier.
  mutating func absorb(_ packet: DNSMessage) {
    for question in packet.questions where size < maxRecords && questions.insert(question).inserted {
      query.questions.append(question)
    }
    query.answers += packet.answers.prefix(max(0, maxRecords - size))
    query.authorities += packet.authorities.prefix(max(0, maxRecords - size))
  }

  private var size: Int { query.questions.count + query.answers.count + query.authorities.count }
}
