/// Where a client's view of its room stands, one value: before any connect was answered (the
/// next connect asks for the recent history), or resuming (the next connect asks for what
/// came after `lastID` in `epoch`: a reconnect, or a client given a ``ChatResumePoint``).
/// WebSocket only in effect: the line and UDP dialects carry no ids.
enum ChatResumeState: Equatable {
  /// No connect answered yet and no resume point given. Ids seen meanwhile still deduplicate.
  case fresh(lastID: UInt64?, epoch: String?)
  /// A connect was answered (or a point given): delivered up to `lastID` (`nil`: nothing yet)
  /// of the history `epoch`.
  case resuming(lastID: UInt64?, epoch: String?)

  /// The highest message id delivered.
  var lastID: UInt64? {
    get {
      switch self {
      case .fresh(let id, _), .resuming(let id, _): id
      }
    }
    set {
      switch self {
      case .fresh(_, let epoch): self = .fresh(lastID: newValue, epoch: epoch)
      case .resuming(_, let epoch): self = .resuming(lastID: newValue, epoch: epoch)
      }
    }
  }

  /// The room history's epoch last reported.
  var epoch: String? {
    get {
      switch self {
      case .fresh(_, let epoch), .resuming(_, let epoch): epoch
      }
    }
    set {
      switch self {
      case .fresh(let id, _): self = .fresh(lastID: id, epoch: newValue)
      case .resuming(let id, _): self = .resuming(lastID: id, epoch: newValue)
      }
    }
  }

  /// Whether the next connect resumes (asks for what came after ``lastID``).
  var isResuming: Bool {
    if case .resuming = self { return true }
    return false
  }

  /// A connect was answered (its history arrived): from now on connects resume.
  mutating func answered() {
    self = .resuming(lastID: lastID, epoch: epoch)
  }
}
