import SwitchboardChat

/// The sessions alive on one loop, by member id (``LoopContext/sessions``). Keyed by the id's
/// number alone: a ``MemberID`` also carries the hub's record reference, which is not part
/// of its identity and would make every slot of the table 8 bytes larger (one slot, with
/// the hash table's slack, per open connection).
struct SessionTable {
  private var byNumber: [UInt64: AnyObject] = [:]

  /// The session of `id`, if it is alive on this loop.
  subscript(id: MemberID) -> AnyObject? {
    get { byNumber[id.raw] }
    set { byNumber[id.raw] = newValue }
  }

  /// Every session in the table.
  var values: Dictionary<UInt64, AnyObject>.Values { byNumber.values }
}
