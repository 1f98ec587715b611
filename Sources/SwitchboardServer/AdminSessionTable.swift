/// The admin console's sessions on this node (docs/OPERATIONS.md, "The admin console"): each
/// made by a login, valid until its absolute expiry, with its own CSRF token. At most
/// `capacity` are kept: a login beyond it forgets the oldest. A pure value: the caller keeps
/// it behind a lock and passes the time (milliseconds since the epoch).
struct AdminSessionTable {
  /// One logged-in browser (or `switchboard top`).
  struct Session: Sendable, Equatable {
    /// The cookie's value: 32 random bytes in hex.
    let id: String
    /// The token every state-changing request must carry in `X-CSRF-Token`.
    let csrf: String
    /// When it ends, in milliseconds since the epoch.
    let expires: Int64
  }

  let capacity: Int
  let lifetimeMilliseconds: Int64
  private var sessions: [String: Session] = [:]
  /// Ids from the oldest login to the newest (those logged out are skipped when met).
  private var order: [String] = []

  init(capacity: Int, lifetime: Duration) {
    self.capacity = max(1, capacity)
    self.lifetimeMilliseconds =
      lifetime.components.seconds * 1000 + lifetime.components.attoseconds / 1_000_000_000_000_000
  }

  /// How many sessions are kept.
  var count: Int { sessions.count }

  /// Starts a session with the given random `id` and `csrf` token at `now`.
  mutating func open(id: String, csrf: String, now: Int64) -> Session {
    let session = Session(id: id, csrf: csrf, expires: now + lifetimeMilliseconds)
    sessions[id] = session
    order.append(id)
    while sessions.count > capacity, !order.isEmpty {
      sessions[order.removeFirst()] = nil
    }
    // Logged-out ids stay in `order` until met; keep the list from outgrowing the table.
    if order.count > 2 * capacity { order = order.filter { sessions[$0] != nil } }
    return session
  }

  /// The session `id` names, unless it has expired (then it is forgotten).
  mutating func find(_ id: String, now: Int64) -> Session? {
    guard let session = sessions[id] else { return nil }
    guard now < session.expires else {
      sessions[id] = nil
      return nil
    }
    return session
  }

  /// Forgets the session `id` (a logout).
  mutating func close(_ id: String) {
    sessions[id] = nil
  }
}
