#if canImport(Network)
  import Dispatch
  @preconcurrency import Network  // why: see NetworkChatTransport.swift

  /// The default ``ChatPathMonitor`` on Apple platforms: `NWPathMonitor`, each path mapped to
  /// a ``ChatNetworkPath`` (what a change means is decided by the client, not here).
  public struct SystemPathMonitor: ChatPathMonitor {
    /// Creates a monitor; nothing is watched until a client asks for ``paths()``.
    public init() {}

    /// Starts an `NWPathMonitor` that reports every path (the current one first) until the
    /// stream's consumer stops, which cancels it.
    public func paths() -> AsyncStream<ChatNetworkPath> {
      AsyncStream { continuation in
        let monitor = NWPathMonitor()
        monitor.pathUpdateHandler = { path in
          continuation.yield(
            ChatNetworkPath(
              isSatisfied: path.status == .satisfied, interfaces: path.availableInterfaces.map(\.name)))
        }
        continuation.onTermination = { _ in monitor.cancel() }
        monitor.start(queue: DispatchQueue(label: "switchboard.path-monitor"))
      }
    }
  }
#endif
