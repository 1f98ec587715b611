import SwitchboardDNS
import SwitchboardIO
import SwitchboardLog
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The built-in mDNS responder on real sockets: an ``MDNSResponder`` driven by an event loop,
/// with UDP port 5353 shared with any other responder on the host (`SO_REUSEADDR` and
/// `SO_REUSEPORT`), the groups 224.0.0.251 and (where an interface has IPv6) ff02::fb joined on
/// every multicast interface, multicast loop on and TTL / hop limit 255.
///
/// ```swift
/// let advertiser = try MDNSAdvertiser(configuration: .init(hostName: "vm")) { event in print(event) }
/// let id = try advertiser.register(MDNSService(instance: "Chat", type: "_switchboard._tcp", port: 8080))
/// …
/// advertiser.shutdown()  // goodbyes, then the sockets close
/// ```
/// Interfaces are read again every ``Configuration/interfacePollInterval``: new ones are
/// joined and announced on, vanished ones dropped.
public final class MDNSAdvertiser: @unchecked Sendable {
  // Safety: `responder`, `transport`, `timer` and `poll` are used only on `loop`'s thread
  // (every public method hops there); `lifecycle` is behind its mutex.

  /// What the advertiser needs besides the services.
  public struct Configuration: Sendable {
    /// The host name label (default: this machine's host name up to its first dot).
    public var hostName: String
    /// Only these interfaces (by name); `nil`: every up, multicast-capable, non-loopback one.
    public var interfaceNames: [String]?
    /// How often the interface list is read again.
    public var interfacePollInterval: Duration = .seconds(5)
    /// Where warnings and per-packet debug lines go.
    public var log: Log
    /// The responder's timings and limits (its host name and interfaces are filled in).
    public var responder: @Sendable (inout MDNSResponderConfiguration) -> Void

    /// A configuration; `hostName` defaults to the machine's.
    public init(
      hostName: String? = nil, interfaceNames: [String]? = nil, log: Log = .disabled,
      responder: @escaping @Sendable (inout MDNSResponderConfiguration) -> Void = { _ in }
    ) {
      self.hostName = hostName ?? MDNSAdvertiser.machineHostName()
      self.interfaceNames = interfaceNames
      self.log = log
      self.responder = responder
    }
  }

  enum Lifecycle {
    case running
    case stopped
  }

  /// The loop the responder runs on.
  public let loop: EventLoop
  private let ownsLoop: Bool
  private let configuration: Configuration
  private let onEvent: @Sendable (MDNSEvent) -> Void
  private var responder: MDNSResponder
  private var transport: MDNSTransport?
  private var timer: Scheduled?
  private var poll: Scheduled?
  private let lifecycle = Mutex(Lifecycle.running)

  /// Opens the sockets and starts probing the host name.
  /// - Parameters:
  ///   - loop: the loop to run on; by default a loop of its own, stopped by ``shutdown()``.
  ///   - onEvent: called on the loop for registrations, renames, failures and warnings.
  /// - Throws: ``DiscoveryError/socket`` when port 5353 cannot be bound for IPv4,
  ///   ``DiscoveryError/invalidHostName``.
  public init(
    configuration: Configuration, loop: EventLoop? = nil,
    onEvent: @escaping @Sendable (MDNSEvent) -> Void = { _ in }
  ) throws(DiscoveryError) {
    if let loop {
      self.loop = loop
      ownsLoop = false
    } else {
      do {
        self.loop = try EventLoop(index: 0)
      } catch {
        throw DiscoveryError.socket.with("event loop: \(error)")
      }
      ownsLoop = true
    }
    self.configuration = configuration
    self.onEvent = onEvent
    var responderConfiguration = MDNSResponderConfiguration(
      hostName: configuration.hostName, interfaces: MDNSTransport.interfaces(configuration.interfaceNames))
    configuration.responder(&responderConfiguration)
    do {
      responder = try MDNSResponder(configuration: responderConfiguration, now: .now())
    } catch {
      if ownsLoop { self.loop.shutdownGracefully() }
      throw error
    }
    let result = onLoop { () -> Result<Void, DiscoveryError> in
      do throws(DiscoveryError) {
        let transport = try MDNSTransport(loop: self.loop, log: configuration.log) {
          [weak self] message, sender, index in
          guard let self else { return }
          self.perform(self.responder.receive(message, from: sender, interface: index, now: .now()))
        }
        transport.use(self.responder.interfaces)
        self.transport = transport
        self.perform(self.responder.scheduleIfNeeded())
        self.poll = self.loop.scheduleRepeatingLocal(every: configuration.interfacePollInterval) {
          [weak self] in
          self?.pollInterfaces()
        }
        return .success(())
      } catch {
        return .failure(error)
      }
    }
    if case .failure(let error) = result {
      if ownsLoop { self.loop.shutdownGracefully() }
      throw error
    }
  }

  /// The host name in use (after any rename).
  public var hostName: String { onLoop { self.responder.hostName } }

  /// What the responder refused so far (off-link and rate-limited queries) and the legacy
  /// unicast queries it answered.
  public var statistics: MDNSResponderStatistics { onLoop { self.responder.statistics } }

  /// The name a service is published under now.
  public func instanceName(of id: MDNSServiceID) -> String? { onLoop { self.responder.instanceName(of: id) } }

  /// Publishes a service (probed, then announced; ``MDNSEvent/registered(_:name:)`` follows).
  /// - Throws: ``DiscoveryError`` for a service that cannot be described in DNS, or after
  ///   ``shutdown()``.
  public func register(_ service: MDNSService) throws(DiscoveryError) -> MDNSServiceID {
    let result = onLoop { () -> Result<MDNSServiceID, DiscoveryError> in
      do throws(DiscoveryError) {
        let (id, actions) = try self.responder.register(service, now: .now())
        self.perform(actions)
        return .success(id)
      } catch {
        return .failure(error)
      }
    }
    return try result.get()
  }

  /// Withdraws a service with goodbyes.
  public func unregister(_ id: MDNSServiceID) {
    onLoop { self.perform(self.responder.unregister(id, now: .now())) }
  }

  /// Sends goodbyes for every service, closes the sockets and (when it owns it) stops the
  /// loop. Safe to call more than once and from signal-handling code off the loop.
  public func shutdown() {
    let first = lifecycle.withLock { state -> Bool in
      defer { state = .stopped }
      return state == .running
    }
    guard first else { return }
    onLoop {
      self.perform(self.responder.shutdown(now: .now()))
      self.timer?.cancel()
      self.poll?.cancel()
      self.transport?.close()
      self.transport = nil
    }
    if ownsLoop { loop.shutdownGracefully() }
  }

  deinit { shutdown() }

  // MARK: Loop side

  private func onLoop<R>(_ body: @escaping () -> R) -> R { loop.runAndWait(body) }

  private func pollInterfaces() {
    let current = MDNSTransport.interfaces(configuration.interfaceNames)
    guard current != responder.interfaces else { return }
    transport?.use(current)
    perform(responder.updateInterfaces(current, now: .now()))
  }

  private func perform(_ actions: [MDNSResponderAction]) {
    for action in actions {
      switch action {
      case .send(let message, let destination):
        transport?.send(message, to: destination)
      case .scheduleTimer(let at):
        timer?.cancel()
        timer = loop.scheduleLocal(at: at) { [weak self] in
          guard let self else { return }
          self.timer = nil
          self.perform(self.responder.timerFired(now: .now()))
        }
      case .registered(let id, let name): onEvent(.registered(id, name: name))
      case .renamed(let id, let from, let to): onEvent(.renamed(id, from: from, to: to))
      case .failed(let id, let error): onEvent(.failed(id, error))
      case .warning(let text):
        configuration.log.warning("\(text)")
        onEvent(.warning(text))
      }
    }
  }

  /// This machine's host name up to the first dot, as one DNS label (`localhost` and empty
  /// names become `switchboard`).
  public static func machineHostName() -> String { MDNSTransport.machineHostName() }
}
