import SwitchboardDNS
import SwitchboardIO
import SwitchboardLog
import Synchronization

/// The built-in browser on real sockets: an ``MDNSBrowser`` driven by an event loop of its
/// own over the shared mDNS sockets (see ``MDNSAdvertiser`` for how they sit next to other
/// responders).
///
/// ```swift
/// let session = try MDNSBrowserSession(types: ["_switchboard._tcp"]) { event in print(event) }
/// …
/// session.shutdown()
/// ```
public final class MDNSBrowserSession: @unchecked Sendable {
  // Safety: `browser`, `transport` and `timer` are used only on `loop`'s thread (every public
  // method hops there); `lifecycle` is behind its mutex.

  enum Lifecycle {
    case running
    case stopped
  }

  private let loop: EventLoop
  private let onEvent: @Sendable (MDNSBrowserEvent) -> Void
  private var browser: MDNSBrowser
  private var transport: MDNSTransport?
  private var timer: Scheduled?
  private let lifecycle = Mutex(Lifecycle.running)

  /// The interfaces browsed (index and name), for printing.
  public let interfaces: [MDNSInterface]

  /// Opens the sockets and starts querying.
  /// - Parameters:
  ///   - types: service types such as `_switchboard._tcp`.
  ///   - interfaceNames: only these interfaces; `nil`: every multicast, non-loopback one.
  ///   - onEvent: called on the session's loop.
  /// - Throws: ``DiscoveryError/invalidServiceType``, ``DiscoveryError/socket``.
  public init(
    types: [String], interfaceNames: [String]? = nil, log: Log = .disabled,
    onEvent: @escaping @Sendable (MDNSBrowserEvent) -> Void
  ) throws(DiscoveryError) {
    interfaces = MDNSTransport.interfaces(interfaceNames)
    browser = try MDNSBrowser(types: types, interfaces: interfaces, now: .now())
    do {
      loop = try EventLoop(index: 0)
    } catch {
      throw DiscoveryError.socket.with("event loop: \(error)")
    }
    self.onEvent = onEvent
    let result = loop.runAndWait { () -> Result<Void, DiscoveryError> in
      do throws(DiscoveryError) {
        let transport = try MDNSTransport(loop: self.loop, log: log) { [weak self] message, sender, index in
          guard let self else { return }
          self.perform(self.browser.receive(message, from: sender, interface: index, now: .now()))
        }
        transport.use(self.interfaces)
        self.transport = transport
        self.perform(self.browser.timerFired(now: .now()))
        return .success(())
      } catch {
        return .failure(error)
      }
    }
    if case .failure(let error) = result {
      loop.shutdownGracefully()
      throw error
    }
  }

  /// Stops querying, closes the sockets and the loop. Safe to call more than once.
  public func shutdown() {
    let first = lifecycle.withLock { state -> Bool in
      defer { state = .stopped }
      return state == .running
    }
    guard first else { return }
    loop.runAndWait {
      self.timer?.cancel()
      self.transport?.close()
      self.transport = nil
    }
    loop.shutdownGracefully()
  }

  deinit { shutdown() }

  private func perform(_ actions: [MDNSBrowserAction]) {
    for action in actions {
      switch action {
      case .send(let message, let destination):
        transport?.send(message, to: destination)
      case .scheduleTimer(let at):
        timer?.cancel()
        timer = loop.scheduleLocal(at: at) { [weak self] in
          guard let self else { return }
          self.timer = nil
          self.perform(self.browser.timerFired(now: .now()))
        }
      case .event(let event):
        onEvent(event)
      }
    }
  }
}
