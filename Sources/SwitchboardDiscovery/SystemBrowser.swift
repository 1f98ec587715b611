import SwitchboardDNS
import SwitchboardIO
import SwitchboardLog
import Synchronization

/// The system backend's browser: `DNSServiceBrowse` per type (and interface, when some are
/// named), `DNSServiceResolve` per instance found, and `DNSServiceQueryRecord` for the A and
/// AAAA records of its host (avahi's library has no `DNSServiceGetAddrInfo`), all on an
/// event loop of its own; ``SystemBrowseState`` turns the replies into the built-in
/// browser's events.
final class SystemBrowser: ServiceBrowser, @unchecked Sendable {
  // Safety: `state`, `browses`, `resolves` and `queries` are used only on `loop`'s thread
  // (the initializer and `shutdown()` hop there); `lifecycle` is behind its mutex.

  private enum Lifecycle {
    case running
    case stopped
  }

  /// Always ``DiscoveryBackend/system``.
  let backend = DiscoveryBackend.system
  /// Every interface here (by index and name), for printing the indices replies carry.
  let interfaces: [MDNSInterface]

  private let loop: EventLoop
  private let log: Log
  private let onEvent: @Sendable (MDNSBrowserEvent) -> Void
  private let onFailure: @Sendable (DiscoveryError) -> Void
  private var state = SystemBrowseState()
  private var browses: [DNSSDOperation] = []
  private var resolves: [SystemBrowseState.Key: DNSSDOperation] = [:]
  private var queries: [SystemBrowseState.Key: [DNSSDOperation]] = [:]
  private let lifecycle = Mutex(Lifecycle.running)

  /// Starts browsing `types` on `interfaceNames` (`nil`: every interface the daemon uses);
  /// `onFailure` hears of each browse that stops after it started.
  /// - Throws: ``DiscoveryError/invalidServiceType``, ``DiscoveryError/systemUnavailable``,
  ///   ``DiscoveryError/localNetworkDenied``.
  init(
    types: [String], interfaceNames: [String]?, log: Log,
    onFailure: @escaping @Sendable (DiscoveryError) -> Void = { _ in },
    onEvent: @escaping @Sendable (MDNSBrowserEvent) -> Void
  ) throws(DiscoveryError) {
    if case .failure(let error) = SystemDNSSD.daemon { throw error }
    var browsed: [String] = []
    for type in types {
      let name = try MDNSService(instance: "x", type: type, port: 1).typeName()
      browsed.append(name.labels.prefix(2).map { String(decoding: $0, as: UTF8.self) }.joined(separator: "."))
    }
    interfaces = MDNSTransport.interfaces(interfaceNames ?? NetworkInterfaces.addresses().map(\.name))
    let indices: [UInt32] = interfaceNames == nil ? [SystemDNSSD.anyInterface] : interfaces.map(\.index)
    guard !indices.isEmpty else {
      throw DiscoveryError.socket.with("none of the interfaces \(interfaceNames ?? []) exists")
    }
    do {
      loop = try EventLoop(index: 0)
    } catch {
      throw DiscoveryError.socket.with("event loop: \(error)")
    }
    self.log = log
    self.onEvent = onEvent
    self.onFailure = onFailure
    let result = loop.runAndWait { () -> Result<Void, DiscoveryError> in
      do throws(DiscoveryError) {
        for type in browsed {
          for index in indices {
            self.browses.append(
              try DNSSDOperation.browse(type, interface: index, on: self.loop) { [weak self] reply in
                self?.browseReplied(reply)
              })
          }
        }
        return .success(())
      } catch {
        self.stopAll()
        return .failure(error)
      }
    }
    if case .failure(let error) = result {
      // deinit runs after a throw from here: it must not wait for the stopped loop.
      lifecycle.withLock { $0 = .stopped }
      loop.shutdownGracefully()
      throw error
    }
  }

  /// Stops every operation and the loop. Safe to call more than once.
  func shutdown() {
    let first = lifecycle.withLock { state -> Bool in
      defer { state = .stopped }
      return state == .running
    }
    guard first else { return }
    loop.runAndWait { self.stopAll() }
    loop.shutdownGracefully()
  }

  deinit { shutdown() }

  // MARK: Loop side

  private func stopAll() {
    for operation in browses { operation.cancel() }
    for operation in resolves.values { operation.cancel() }
    for operation in queries.values.joined() { operation.cancel() }
    browses = []
    resolves = [:]
    queries = [:]
  }

  private func browseReplied(_ reply: DNSSDOperation.Reply) {
    switch reply {
    case .browsed(let added, let interface, let name, let type, let domain):
      let key = SystemBrowseState.Key(instance: name, type: type, domain: domain, interface: interface)
      perform(state.browsed(key, added: added))
    case .failed(let error):
      log.warning("browsing stopped", metadata: ["error": error.message])
      onFailure(error)
    case .registered, .resolved, .record:
      break
    }
  }

  private func perform(_ actions: [SystemBrowseState.Action]) {
    for action in actions {
      switch action {
      case .resolve(let key):
        do {
          resolves[key] = try DNSSDOperation.resolve(
            name: key.instance, type: key.type, domain: key.domain, interface: key.interface, on: loop
          ) { [weak self] reply in
            self?.resolveReplied(reply, for: key)
          }
        } catch {
          log.warning("cannot resolve", metadata: ["instance": key.instance, "error": error.message])
        }
      case .queryAddresses(let key, let host):
        for operation in queries[key] ?? [] { operation.cancel() }
        var started: [DNSSDOperation] = []
        for type in [DNSRecordType.a, .aaaa] {
          do {
            started.append(
              try DNSSDOperation.query(host, type: type, interface: key.interface, on: loop) {
                [weak self] reply in
                self?.queryReplied(reply, for: key)
              })
          } catch {
            log.warning("cannot query addresses", metadata: ["host": host, "error": error.message])
          }
        }
        queries[key] = started
      case .stop(let key):
        resolves.removeValue(forKey: key)?.cancel()
        for operation in queries.removeValue(forKey: key) ?? [] { operation.cancel() }
      case .event(let event):
        onEvent(event)
      }
    }
  }

  private func resolveReplied(_ reply: DNSSDOperation.Reply, for key: SystemBrowseState.Key) {
    switch reply {
    case .resolved(_, let host, let port, let bytes):
      let txt: DNSTXT
      do {
        txt = try DNSTXT(wire: bytes[...])
      } catch {
        log.warning("unreadable TXT", metadata: ["instance": key.instance, "error": error.message])
        txt = .empty
      }
      perform(state.resolved(key, host: host, port: port, txt: txt))
    case .failed(let error):
      log.warning("resolving stopped", metadata: ["instance": key.instance, "error": error.message])
    case .registered, .browsed, .record:
      break
    }
  }

  private func queryReplied(_ reply: DNSSDOperation.Reply, for key: SystemBrowseState.Key) {
    switch reply {
    case .record(let added, _, let type, let rdata):
      let address: SystemBrowseState.Address?
      if type == DNSRecordType.a.rawValue {
        address = DNSIPv4Address(bytes: rdata).map { .ipv4($0) }
      } else {
        address = DNSIPv6Address(bytes: rdata).map { .ipv6($0) }
      }
      if let address { perform(state.address(key, added: added, address)) }
    case .failed(let error):
      log.warning("address query stopped", metadata: ["instance": key.instance, "error": error.message])
    case .registered, .browsed, .resolved:
      break
    }
  }
}
