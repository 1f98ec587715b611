import Foundation
import SwitchboardDiscovery
import SwitchboardIO
import SwitchboardLog
import SwitchboardServer
import Synchronization

/// `switchboard serve`'s DNS-SD side: publishes the listeners that are on
/// (``ServerAdvertisement``) once the server has bound them, reports the names won and any
/// renames, and withdraws them with goodbyes on shutdown. Best effort: when port 5353 cannot
/// be bound, the system daemon does not answer or no multicast interface is up, the server
/// runs anyway and one warning line says why.
final class ServeAdvertising: Sendable {
  /// serve's advertising flags: `--name`, `--no-advertise`, `--mdns`, `--mdns-interface`.
  struct Options: Sendable {
    /// The flags that take a value, for `Arguments(valued:)`.
    static let valued: Set<String> = Set(["name", "mdns-interface"]).union(MDNSOptions.flags)
    /// The boolean flags, for `Arguments(booleans:)`.
    static let booleans: Set<String> = ["no-advertise"]
    /// Set (to `1`) by the test launcher for every child it starts: tests run in the root
    /// network namespace, where nothing may multicast, so a `serve` there without
    /// `--no-advertise` is a mistake and refuses to start. Scripts that run `serve` inside
    /// network namespaces of their own unset it.
    static let forbidEnvironmentVariable = "SWITCHBOARD_FORBID_ADVERTISE"

    /// The instance name (`--name`, default `Switchboard on HOSTNAME`).
    var instance: String
    /// `false` with `--no-advertise`.
    var enabled: Bool
    /// `--mdns`.
    var backend: DiscoveryBackend
    /// `--mdns-interface a,b`; `nil`: every multicast interface (or the one holding the
    /// address given with `--host`).
    var interfaceNames: [String]?

    /// Reads the flags.
    /// - Throws: `Arguments.UsageError` for a bad name or backend, and when advertising is
    ///   on although ``forbidEnvironmentVariable`` is set.
    init(_ args: Arguments, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
      enabled = !args.flag("no-advertise")
      backend = try MDNSOptions(args).backend
      interfaceNames = args.value("mdns-interface").map { $0.split(separator: ",").map(String.init) }
      if let name = args.value("name") {
        guard !name.isEmpty, name.utf8.count <= ServerAdvertisement.maxInstanceLength else {
          throw Arguments.UsageError(
            description:
              "--name must be 1-\(ServerAdvertisement.maxInstanceLength) bytes of UTF-8, not '\(name)'")
        }
        instance = name
      } else {
        instance = ServerAdvertisement.defaultInstance(hostName: MDNSAdvertiser.machineHostName())
      }
      if enabled, environment[Self.forbidEnvironmentVariable] == "1" {
        throw Arguments.UsageError(
          description:
            "\(Self.forbidEnvironmentVariable)=1 (a test in the root network namespace, where nothing may "
            + "multicast): pass --no-advertise")
      }
    }
  }

  /// Names reported by the advertiser's events, which arrive on its own thread.
  private final class Names: Sendable {
    let state: Mutex<(host: String, services: [MDNSServiceID: MDNSService])>
    init(host: String) { state = Mutex((host, [:])) }
  }

  /// Where `/metrics` finds the built-in responder's counts once advertising started (the
  /// server, and so its metrics closure, exists before the advertiser).
  final class MetricsSlot: Sendable {
    private let advertiser = Mutex<MDNSAdvertiser?>(nil)
    func set(_ value: MDNSAdvertiser) { advertiser.withLock { $0 = value } }
    /// The responder's counters, or nothing when the built-in responder is not running.
    var prometheusText: String { advertiser.withLock { $0 }?.statistics.prometheusText() ?? "" }
  }

  private let advertiser: any ServiceAdvertiser

  private init(advertiser: any ServiceAdvertiser) { self.advertiser = advertiser }

  /// Starts advertising `server`'s bound listeners; returns `nil` (after printing why)
  /// when advertising is off or cannot run. Prints the banner lines, then one line per
  /// name won (`advertised NAME.TYPE.local on HOST.local:PORT`) and per rename.
  static func start(
    _ options: Options, server: ChatServer, room: String, logger: Log, metrics: MetricsSlot? = nil
  ) -> ServeAdvertising? {
    guard options.enabled else {
      Output.print("Not advertised over mDNS (--no-advertise).")
      return nil
    }
    let bound = server.tcpAddress ?? server.udpAddress ?? server.httpAddress
    var interfaceNames = options.interfaceNames
    if interfaceNames == nil, let bound, !bound.isWildcard {
      let holding = NetworkInterfaces.addresses().filter { $0.address.ipAddress == bound.ipAddress }
      if holding.allSatisfy(\.isLoopback) {
        Output.print(
          "Not advertised over mDNS: bound to \(bound.ipAddress), which no other machine can reach.")
        return nil
      }
      interfaceNames = holding.map(\.name)
    }
    let ad = ServerAdvertisement(
      instance: options.instance, room: room, tcpPort: server.tcpAddress.map { UInt16($0.port) },
      udpPort: server.udpAddress.map { UInt16($0.port) }, httpPort: server.httpAddress.map { UInt16($0.port) }
    )
    let services = ad.services
    guard !services.isEmpty else { return nil }

    let log = logger.child(label: "switchboard.mdns")
    let configuration = MDNSAdvertiser.Configuration(interfaceNames: interfaceNames, log: log)
    let names = Names(host: configuration.hostName)
    let advertiser: any ServiceAdvertiser
    do {
      advertiser = try Discovery.advertiser(backend: options.backend, configuration: configuration) { event in
        report(event, names: names, log: log)
      }
    } catch {
      log.warning("not advertised over mDNS; serving anyway", metadata: ["reason": error.message])
      return nil
    }
    names.state.withLock { $0.host = advertiser.hostName }
    if let builtin = advertiser as? MDNSAdvertiser { metrics?.set(builtin) }
    for service in services {
      do {
        let id = try advertiser.register(service)
        names.state.withLock { $0.services[id] = service }
      } catch {
        log.warning("not advertised over mDNS", metadata: ["type": service.type, "reason": error.message])
      }
    }
    let list = services.map { "\($0.type) \($0.port)" }.joined(separator: ", ")
    Output.print("Advertising over mDNS as '\(options.instance)' on \(advertiser.hostName).local: \(list)")
    if advertiser.backend == .builtin, !hasMulticastInterface(interfaceNames) {
      log.warning(
        "no multicast interface is up; advertising starts when one comes up",
        metadata: ["interfaces": interfaceNames?.joined(separator: ",") ?? "any"])
    }
    return ServeAdvertising(advertiser: advertiser)
  }

  /// Withdraws every service with goodbyes (before the listeners close, so browsers drop
  /// the server first). Safe to call more than once.
  func shutdown() { advertiser.shutdown() }

  private static func report(_ event: MDNSEvent, names: Names, log: Log) {
    switch event {
    case .registered(let id, let name):
      let (host, service) = names.state.withLock { ($0.host, $0.services[id]) }
      let type = service?.type ?? "?"
      Output.print("advertised \(name).\(type).local on \(host).local:\(service.map { "\($0.port)" } ?? "?")")
    case .renamed(nil, let from, let to):
      names.state.withLock { $0.host = to }
      Output.print("host name \(from).local is taken; now \(to).local")
      log.notice("mDNS host renamed after a conflict", metadata: ["from": from, "to": to])
    case .renamed(let id?, let from, let to):
      let type = names.state.withLock { $0.services[id]?.type } ?? "?"
      Output.print("name '\(from)' is taken for \(type); trying '\(to)'")
      log.notice("mDNS name renamed after a conflict", metadata: ["type": type, "from": from, "to": to])
    case .failed(let id, let error):
      let type = id.flatMap { id in names.state.withLock { $0.services[id]?.type } } ?? "host name"
      log.warning("no longer advertised over mDNS", metadata: ["type": type, "reason": error.message])
    case .warning:
      break  // the advertiser logs it
    }
  }

  /// Whether an interface the built-in responder would use is up (its own rule: up,
  /// multicast-capable, not loopback; or one of those named).
  private static func hasMulticastInterface(_ names: [String]?) -> Bool {
    NetworkInterfaces.addresses().contains { entry in
      if let names { return names.contains(entry.name) }
      return !entry.isLoopback && entry.supportsMulticast
    }
  }
}
