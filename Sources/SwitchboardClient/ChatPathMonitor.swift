/// Tells a ``ChatClient`` when the device's network path changes, so that it reconnects at
/// once instead of waiting for the heartbeat to find a silently dead socket (Wi-Fi handed
/// over to cellular), and does not spend reconnect attempts while there is no network.
///
/// On Apple platforms ``ChatClient/Configuration/pathMonitor`` defaults to
/// ``SystemPathMonitor`` (`NWPathMonitor`); elsewhere to `nil`. Write one to feed the
/// client from another source; or leave the configuration's `nil` and call
/// ``ChatClient/networkPathChanged(_:)`` from a monitor of your own.
public protocol ChatPathMonitor: Sendable {
  /// The current path, then every change, until the consumer stops iterating (the client
  /// does when its ``ChatClient/run(isolation:_:)`` ends). Called once per run.
  func paths() -> AsyncStream<ChatNetworkPath>
}

/// A network path as a ``ChatPathMonitor`` reports it.
public struct ChatNetworkPath: Sendable, Hashable {
  /// Whether the path can reach the network (`NWPath.status == .satisfied`).
  public var isSatisfied: Bool
  /// The interfaces the path may use, by name (`en0`, `pdp_ip0`: `NWPath.availableInterfaces`);
  /// empty when the monitor does not know. The client compares the set with the previous
  /// path's: a different set means the connection may ride an interface that is gone.
  public var interfaces: [String]

  /// Creates a path.
  public init(isSatisfied: Bool, interfaces: [String] = []) {
    self.isSatisfied = isSatisfied
    self.interfaces = interfaces
  }
}

/// What a path change does, decided from the previous path: the part of the network-path
/// hook that needs no platform, so Linux tests it.
///
/// - The first path reported is where the client starts: nothing to do.
/// - Satisfied after unsatisfied, or satisfied on another set of interfaces: reconnect now.
///   The old socket may be dead without a word (its interface went away), and waiting for
///   the heartbeat to notice takes up to its interval plus its timeout.
/// - Unsatisfied: keep what is there (it may come back), but while the path stays
///   unsatisfied a lost connection waits for a satisfied path instead of spending
///   reconnect attempts on a network that is not there.
struct ChatPathTracker: Sendable {
  enum Action: Sendable, Hashable {
    /// Nothing changed that matters.
    case none
    /// Drop the connection (or the backoff) and connect at once.
    case reconnectNow
    /// No network: do not reconnect until it is back.
    case waitForNetwork
  }

  /// The last path reported, `nil` before the first.
  private(set) var last: ChatNetworkPath?

  /// Whether a reconnect may be tried now (also before any report).
  var isSatisfied: Bool { last?.isSatisfied ?? true }

  /// Records `path` and says what it means.
  mutating func update(_ path: ChatNetworkPath) -> Action {
    defer { last = path }
    guard let last else { return path.isSatisfied ? .none : .waitForNetwork }
    switch (last.isSatisfied, path.isSatisfied) {
    case (_, false): return last.isSatisfied ? .waitForNetwork : .none
    case (false, true): return .reconnectNow
    case (true, true): return Set(last.interfaces) == Set(path.interfaces) ? .none : .reconnectNow
    }
  }
}
