import SwitchboardChat
import SwitchboardIO
import Synchronization

/// The admin console's state shared by every loop (docs/OPERATIONS.md, "The admin
/// console"): the password, this node's sessions, the login limiter and the live streams'
/// hub. Each table is one value behind one lock.
final class AdminConsole: Sendable {
  let configuration: AdminConfiguration
  private let sessions: Mutex<AdminSessionTable>
  private let logins = Mutex(AdminLoginLimiter())
  /// The `/admin/events` streams' hub.
  let events = AdminEventHub()

  init(configuration: AdminConfiguration) {
    self.configuration = configuration
    sessions = Mutex(
      AdminSessionTable(capacity: configuration.maxSessions, lifetime: configuration.sessionLifetime))
  }

  /// Whether the console answers at all.
  var isEnabled: Bool { configuration.isEnabled }

  /// How a login went.
  enum Login: Equatable {
    case opened(AdminSessionTable.Session)
    case wrongPassword
    case tooManyAttempts(retryAfter: Int)
    case disabled
  }

  /// A login from `address` with `password`: refused unchecked while the address is
  /// limited, else checked and counted.
  func login(password: String, address: String) -> Login {
    guard let expected = configuration.password else { return .disabled }
    let now = Self.monotonicMilliseconds()
    if case .refuse(let retryAfter) = logins.withLock({ $0.admit(address, now: now) }) {
      return .tooManyAttempts(retryAfter: retryAfter)
    }
    guard expected.accepts(password) else {
      logins.withLock { $0.failed(address, now: now) }
      return .wrongPassword
    }
    logins.withLock { $0.succeeded(address) }
    let id = Self.randomHex(32)
    let csrf = Self.randomHex(32)
    return .opened(sessions.withLock { $0.open(id: id, csrf: csrf, now: ChatClock.milliseconds()) })
  }

  /// The session `id` names, while it lasts.
  func session(_ id: String) -> AdminSessionTable.Session? {
    sessions.withLock { $0.find(id, now: ChatClock.milliseconds()) }
  }

  /// Forgets the session `id`.
  func logout(_ id: String) {
    sessions.withLock { $0.close(id) }
  }

  private static func monotonicMilliseconds() -> Int64 {
    Int64(Deadline.now().nanoseconds / 1_000_000)
  }

  /// `count` bytes from the system's secure generator, in lower-case hex.
  static func randomHex(_ count: Int) -> String {
    var generator = SystemRandomNumberGenerator()
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(count * 2)
    for _ in 0..<count {
      let byte = UInt8.random(in: .min ... .max, using: &generator)
      out.append(digits[Int(byte >> 4)])
      out.append(digits[Int(byte & 15)])
    }
    return String(decoding: out, as: UTF8.self)
  }
}
