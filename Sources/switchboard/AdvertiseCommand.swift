import Foundation
import SwitchboardDNS
import SwitchboardDiscovery
import Synchronization

/// `switchboard advertise NAME TYPE PORT [KEY=VALUE…]`: publish one service (built-in mDNS
/// responder or the system's daemon) until killed (the job of `dns-sd -R` and `avahi-publish -s`).
enum AdvertiseCommand {
  static let help = """
    usage: switchboard advertise NAME TYPE PORT [KEY=VALUE…] [--host HOSTNAME] [--interface NAMES]
                                 [--mdns BACKEND]

    Publishes the service instance NAME of TYPE (_name._tcp or _name._udp) on PORT with the
    TXT attributes given (KEY=VALUE, KEY= or KEY), through the built-in mDNS responder
    (port 5353, shared with any other responder here) or the system's DNS-SD daemon
    (--mdns). The name is probed first; if another responder holds it, it is advertised as
    "NAME (2)" (avahi-daemon: "NAME #2") and so on, and this says so. It runs until
    SIGINT or SIGTERM, then sends goodbyes so browsers drop the service at once.

      --host HOSTNAME    the host name to publish (default: this machine's, up to the first
                         dot; the system backend publishes on its daemon's host name)
      --interface NAMES  only these interfaces, comma-separated (default: every multicast one;
                         the system backend takes one interface or all)
    \(MDNSOptions.help)
      --log-level LEVEL  trace, debug, info, notice, warning (default), error, critical
      --log-format F     text (default) or json

    Prints one line when the service is advertised (`advertised NAME.TYPE.local on
    HOST.local:PORT`) and one per rename. --version prints the version and the commit it
    was built from. Exit codes: 0 stopped by a signal, 1 could not advertise (port 5353
    unavailable, the name conflicted too often, or --mdns system without a daemon that
    answers), 64 bad usage.
    """

  static func run(_ argv: [String]) -> Int32 {
    let args: Arguments
    let logOptions: LogOptions
    let mdns: MDNSOptions
    do {
      args = try Arguments(
        argv, valued: Set(["host", "interface"]).union(LogOptions.flags).union(MDNSOptions.flags), booleans: ["help"])
      logOptions = try LogOptions(args, defaultLevel: .warning)
      mdns = try MDNSOptions(args)
    } catch {
      return Usage.fail("advertise", "\(error)")
    }
    if let code = args.helpOrVersion(help) { return code }
    let positional = args.positional
    guard positional.count >= 3 else {
      return Usage.fail("advertise", "needs NAME TYPE PORT")
    }
    guard let port = UInt16(positional[2]), port > 0 else {
      return Usage.fail("advertise", "PORT must be a number in 1...65535, not '\(positional[2])'")
    }
    let service: MDNSService
    do {
      service = MDNSService(
        instance: positional[0], type: positional[1], port: port,
        txt: try DNSTXT(strings: Array(positional[3...])))
      _ = try service.typeName()
    } catch let error as DiscoveryError {
      return Usage.fail("advertise", "\(error.message)")
    } catch {
      return Usage.fail("advertise", "\(error)")
    }
    let logger = logOptions.logger(label: "switchboard.advertise")
    let stop = DispatchSemaphore(value: 0)
    let exitCode = Atomic<Int32>(ExitCode.ok)
    let configuration = MDNSAdvertiser.Configuration(
      hostName: args.value("host"),
      interfaceNames: args.value("interface").map { $0.split(separator: ",").map(String.init) }, log: logger)
    let type = positional[1]
    let hostName = Mutex(configuration.hostName)
    // The system backend publishes on its daemon's host name, which it learns on the way.
    let current = Mutex<(any ServiceAdvertiser)?>(nil)
    let advertiser: any ServiceAdvertiser
    do {
      advertiser = try Discovery.advertiser(backend: mdns.backend, configuration: configuration) { event in
        switch event {
        case .registered(_, let name):
          let host = current.withLock { $0 }?.hostName ?? hostName.withLock { $0 }
          Output.print("advertised \(name).\(type).local on \(host).local:\(port)")
        case .renamed(nil, let from, let to):
          hostName.withLock { $0 = to }
          Output.print("host name \(from).local is taken; now \(to).local")
        case .renamed(_, let from, let to):
          Output.print("name '\(from)' is taken; trying '\(to)'")
        case .failed(_, let error):
          Output.error("switchboard advertise: \(error.message)")
          exitCode.store(ExitCode.failure, ordering: .relaxed)
          stop.signal()
        case .warning:
          break  // the advertiser logs it (at warning, the default level)
        }
      }
      current.withLock { $0 = advertiser }
      _ = try advertiser.register(service)
    } catch {
      guard error == .socket || error == .systemUnavailable else { return Usage.fail("advertise", error.message) }
      Output.error("switchboard advertise: \(error.message)")
      return ExitCode.failure
    }
    StopSignals.install { _ in stop.signal() }
    stop.wait()
    advertiser.shutdown()
    return exitCode.load(ordering: .relaxed)
  }
}
