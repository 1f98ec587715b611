import Foundation
import SwitchboardDNS
import SwitchboardDiscovery
import Synchronization

/// `switchboard browse [TYPE…] [--timeout S] [--json]`: list services found over mDNS, live,
/// in the shape of `avahi-browse -r -p`.
enum BrowseCommand {
  static let defaultTypes = ["_switchboard._tcp", "_switchboard._udp"]

  static let help = """
    usage: switchboard browse [TYPE…] [--timeout SECONDS] [--json] [--interface NAMES]
                              [--mdns BACKEND]

    Browses for TYPE (default: _switchboard._tcp and _switchboard._udp) over mDNS
    (the backend --mdns picks) and prints one line per resolved instance and address, and one when an
    instance goes away, as `avahi-browse -r -p` does:

      =;IFACE;IPv4;NAME;TYPE;local;HOST;ADDRESS;PORT;"key=value" …
      -;IFACE;IPv4;NAME;TYPE;local

    NAME is escaped the way avahi does (a space is \\032). With --json each event is one JSON
    object per line instead: {"event":"added|updated|removed","interface","name","type",
    "domain","host","port","addresses","txt"}.

      --timeout SECONDS  stop after this long: exit 0 if something was found, 1 if not,
                         saying so on stderr (without it: run until SIGINT or SIGTERM, exit 0)
      --interface NAMES  only these interfaces, comma-separated
    \(MDNSOptions.help)
      --log-level LEVEL, --log-format F   as for serve

    --version prints the version and the commit it was built from. Exit codes: 0 found
    something (or stopped by a signal), 1 nothing found, port 5353 unavailable or --mdns
    system without a daemon that answers, 64 bad usage.
    """

  struct Line: Encodable {
    let event: String
    let interface: String
    let name: String
    let type: String
    let domain: String
    let host: String?
    let port: UInt16?
    let addresses: [String]?
    let txt: [String]?
  }

  static func run(_ argv: [String]) -> Int32 {
    let args: Arguments
    let logOptions: LogOptions
    let timeout: Double?
    let mdns: MDNSOptions
    do {
      args = try Arguments(
        argv, valued: Set(["timeout", "interface"]).union(LogOptions.flags).union(MDNSOptions.flags),
        booleans: ["help", "json"])
      logOptions = try LogOptions(args, defaultLevel: .warning)
      mdns = try MDNSOptions(args)
      timeout = try args.double("timeout")
    } catch {
      return Usage.fail("browse", "\(error)")
    }
    if let code = args.helpOrVersion(help) { return code }
    let types = args.positional.isEmpty ? defaultTypes : args.positional
    let json = args.flag("json")
    let found = Atomic<Bool>(false)
    let names = Mutex<[UInt32: String]>([:])
    let stop = DispatchSemaphore(value: 0)
    let session: any ServiceBrowser
    do {
      session = try Discovery.browser(
        backend: mdns.backend, types: types,
        interfaceNames: args.value("interface").map { $0.split(separator: ",").map(String.init) },
        log: logOptions.logger(label: "switchboard.browse")
      ) { event in
        if case .added = event { found.store(true, ordering: .relaxed) }
        for line in lines(
          for: event, interfaceName: { index in names.withLock { $0[index] } ?? "\(index)" }, json: json)
        {
          Output.print(line)
        }
      }
    } catch {
      // A backend this platform does not run (--mdns builtin on macOS) is bad usage too.
      if error == .invalidServiceType || error == .unsupported { return Usage.fail("browse", error.message) }
      Output.error("switchboard browse: \(error.message)")
      return ExitCode.failure
    }
    names.withLock { table in for interface in session.interfaces { table[interface.index] = interface.name }
    }
    StopSignals.install { _ in stop.signal() }
    let signalled: Bool
    if let timeout {
      signalled = stop.wait(timeout: .now() + timeout) == .success
    } else {
      stop.wait()
      signalled = true
    }
    session.shutdown()
    if signalled || found.load(ordering: .relaxed) { return ExitCode.ok }
    // Said on stderr, so that stdout stays the list (empty) a script reads.
    Output.error(
      "switchboard browse: found no \(types.joined(separator: ", ")) service within \(timeout.map { "\($0)" } ?? "?") s")
    return ExitCode.failure
  }

  /// The output lines for one event: avahi's `-p` shape, or JSON.
  static func lines(for event: MDNSBrowserEvent, interfaceName: (UInt32) -> String, json: Bool) -> [String] {
    switch event {
    case .added(let service), .updated(let service):
      let iface = interfaceName(service.interface)
      let txt = service.txt.entries.map(\.description)
      let v4 = service.ipv4.map(\.description)
      let v6 = service.ipv6.map { address in
        let text = address.description
        return text.lowercased().hasPrefix("fe80") ? "\(text)%\(iface)" : text
      }
      if json {
        let kind = if case .added = event { "added" } else { "updated" }
        return [
          encode(
            Line(
              event: kind, interface: iface, name: service.instance, type: service.type,
              domain: service.domain,
              host: service.host, port: service.port, addresses: v4 + v6, txt: txt))
        ]
      }
      let name = escaped(service.instance)
      let quoted = txt.map { "\"\($0)\"" }.joined(separator: " ")
      return v4.map {
        "=;\(iface);IPv4;\(name);\(service.type);\(service.domain);\(service.host);\($0);\(service.port);\(quoted)"
      }
        + v6.map {
          "=;\(iface);IPv6;\(name);\(service.type);\(service.domain);\(service.host);\($0);\(service.port);\(quoted)"
        }
    case .removed(let instance, let type, let interface):
      let iface = interfaceName(interface)
      if json {
        return [
          encode(
            Line(
              event: "removed", interface: iface, name: instance, type: type, domain: "local", host: nil,
              port: nil,
              addresses: nil, txt: nil))
        ]
      }
      return ["-;\(iface);IPv4;\(escaped(instance));\(type);local"]
    }
  }

  /// avahi's `\DDD` escaping of one label (what `avahi-browse -p` prints).
  static func escaped(_ instance: String) -> String {
    (try? DNSName(labels: [instance]))?.formatted(.avahi) ?? instance
  }

  static func encode(_ line: Line) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return (try? encoder.encode(line)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
  }
}
