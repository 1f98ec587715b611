import Dispatch
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
  // Safety: `responder`, `sockets`, `timer` and `joined` are used only on `loop`'s thread
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

  /// 224.0.0.251:5353.
  static let groupV4 = try! SocketAddress(host: "224.0.0.251", port: 5353)
  /// [ff02::fb]:5353.
  static let groupV6 = try! SocketAddress(host: "ff02::fb", port: 5353)

  /// The loop the responder runs on.
  public let loop: EventLoop
  private let ownsLoop: Bool
  private let configuration: Configuration
  private let onEvent: @Sendable (MDNSEvent) -> Void
  private var responder: MDNSResponder
  private var sockets: [Int32: UDPSocket] = [:]  // by family
  private var receiver: Receiver?
  private var joined: Set<String> = []  // "family/index"
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
      hostName: configuration.hostName, interfaces: Self.interfaces(configuration.interfaceNames))
    configuration.responder(&responderConfiguration)
    do {
      responder = try MDNSResponder(configuration: responderConfiguration, now: .now())
    } catch {
      if ownsLoop { self.loop.shutdownGracefully() }
      throw error
    }
    let result = onLoop { () -> Result<Void, DiscoveryError> in
      do throws(DiscoveryError) {
        try self.openSockets()
        self.joinGroups()
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
      for socket in self.sockets.values { socket.close() }
      self.sockets = [:]
    }
    if ownsLoop { loop.shutdownGracefully() }
  }

  deinit { shutdown() }

  // MARK: Loop side

  private func onLoop<R>(_ body: @escaping () -> R) -> R {
    if loop.inEventLoop { return body() }
    let box = ResultBox<R>()
    let done = DispatchSemaphore(value: 0)
    // Safety: `body` runs exactly once on the loop while this thread waits for it.
    nonisolated(unsafe) let work = body
    loop.execute {
      box.value = work()
      done.signal()
    }
    done.wait()
    return box.value!
  }

  private func openSockets() throws(DiscoveryError) {
    var options = SocketOptions()
    options.reuseAddress = true
    options.reusePort = true
    let receiver = Receiver(owner: self)
    self.receiver = receiver
    do {
      let v4 = try UDPSocket(
        bindingTo: try SocketAddress(host: "0.0.0.0", port: 5353), options: options, loop: loop)
      try v4.enableMulticast(hops: 255)
      v4.delegate = receiver
      sockets[AF_INET] = v4
    } catch {
      throw DiscoveryError.socket.with("IPv4 port 5353: \(error)")
    }
    options.v6Only = true
    do {
      let v6 = try UDPSocket(
        bindingTo: try SocketAddress(host: "::", port: 5353), options: options, loop: loop)
      try v6.enableMulticast(hops: 255)
      v6.delegate = receiver
      sockets[AF_INET6] = v6
    } catch {
      configuration.log.info("mDNS over IPv6 is off", metadata: ["error": "\(error)"])
    }
  }

  /// Joins the groups on every interface that has an address of the family.
  private func joinGroups() {
    for interface in responder.interfaces {
      for (family, group, has) in [
        (AF_INET, Self.groupV4, !interface.ipv4.isEmpty), (AF_INET6, Self.groupV6, !interface.ipv6.isEmpty),
      ] where has {
        let key = "\(family)/\(interface.index)"
        guard let socket = sockets[family], !joined.contains(key) else { continue }
        do {
          try socket.joinMulticastGroup(group, interface: interface.index)
          joined.insert(key)
        } catch {
          configuration.log.warning(
            "could not join the mDNS group", metadata: ["interface": interface.name, "error": "\(error)"])
        }
      }
    }
  }

  private func pollInterfaces() {
    let current = Self.interfaces(configuration.interfaceNames)
    guard current != responder.interfaces else { return }
    let kept = Set(current.map(\.index))
    joined = joined.filter { key in kept.contains(UInt32(key.split(separator: "/")[1]) ?? 0) }
    perform(responder.updateInterfaces(current, now: .now()))
    joinGroups()
  }

  fileprivate func received(_ bytes: UnsafeRawBufferPointer, from sender: SocketAddress, interface: UInt32) {
    guard let message = try? DNSMessage(decoding: Array(bytes)) else {
      configuration.log.debug("undecodable mDNS packet", metadata: ["from": "\(sender)"])
      return
    }
    // IPv6 link-local senders carry their interface as scope; pktinfo says it for IPv4.
    let index = interface != 0 ? interface : sender.scope
    perform(responder.receive(message, from: sender, interface: index, now: .now()))
  }

  private func perform(_ actions: [MDNSResponderAction]) {
    for action in actions {
      switch action {
      case .send(let message, let destination):
        send(message, to: destination)
      case .scheduleTimer(let at):
        timer?.cancel()
        let now = Deadline.now()
        let delay: Duration = at > now ? .nanoseconds(Int64(at.nanoseconds - now.nanoseconds)) : .zero
        timer = loop.scheduleLocal(after: delay) { [weak self] in
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

  private func send(_ message: DNSMessage, to destination: MDNSDestination) {
    let bytes = message.encode()
    bytes.withUnsafeBytes { raw in
      switch destination {
      case .multicast(let index):
        guard let interface = responder.interfaces.first(where: { $0.index == index }) else { return }
        if !interface.ipv4.isEmpty { sockets[AF_INET]?.send(raw, toGroup: Self.groupV4, interface: index) }
        if !interface.ipv6.isEmpty { sockets[AF_INET6]?.send(raw, toGroup: Self.groupV6, interface: index) }
      case .unicast(let address, _):
        sockets[address.family]?.send(raw, to: address)
      }
    }
  }

  // MARK: The machine

  /// This machine's host name up to the first dot, made into one DNS label (`localhost` and
  /// empty names become `switchboard`).
  public static func machineHostName() -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count) == 0 else { return "switchboard" }
    let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let label = name.split(separator: ".").first.map(String.init) ?? ""
    return label.isEmpty || label == "localhost" ? "switchboard" : String(label.prefix(63))
  }

  /// The up, multicast-capable, non-loopback interfaces with their addresses (or the named ones).
  static func interfaces(_ names: [String]?) -> [MDNSInterface] {
    var byIndex: [UInt32: MDNSInterface] = [:]
    for entry in NetworkInterfaces.addresses() {
      if let names {
        guard names.contains(entry.name) else { continue }
      } else {
        guard !entry.isLoopback, entry.supportsMulticast else { continue }
      }
      var interface = byIndex[entry.index] ?? MDNSInterface(index: entry.index, name: entry.name)
      let bytes = entry.address.addressBytes
      if entry.address.family == AF_INET, let v4 = DNSIPv4Address(bytes: bytes) {
        interface.ipv4.append(v4)
      } else if let v6 = DNSIPv6Address(bytes: bytes) {
        interface.ipv6.append(v6)
      }
      byIndex[entry.index] = interface
    }
    return byIndex.keys.sorted().map { byIndex[$0]! }
  }
}

/// The sockets' delegate: hands datagrams to the advertiser (weakly held by the sockets).
private final class Receiver: UDPSocketDelegate {
  weak var owner: MDNSAdvertiser?

  init(owner: MDNSAdvertiser) { self.owner = owner }

  func socket(
    _ socket: UDPSocket, didReceive bytes: UnsafeRawBufferPointer, from sender: SocketAddress, truncated: Bool
  ) {
    owner?.received(bytes, from: sender, interface: sender.scope)
  }

  func socket(
    _ socket: UDPSocket, didReceive bytes: UnsafeRawBufferPointer, from sender: SocketAddress,
    interface: UInt32,
    truncated: Bool
  ) {
    guard !truncated else { return }
    owner?.received(bytes, from: sender, interface: interface)
  }
}

/// A value handed from the loop back to a waiting thread.
private final class ResultBox<Value>: @unchecked Sendable {
  // Safety: written once on the loop before the semaphore is signalled, read after the wait.
  var value: Value?
}
