import Foundation
import SwitchboardDiscovery

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `switchboard peer --name NAME …`: seed 003's UDP peer mode. Advertises NAME under a
/// DNS-SD type on a UDP port, browses the same type, sends each line of input as one datagram
/// to every peer found and prints what arrives (``PeerSession`` is the behaviour,
/// ``PeerNode`` the sockets around it).
enum PeerCommand {
  static let defaultType = "_networkplayground._udp"

  static let help = """
    usage: switchboard peer --name NAME [--type TYPE] [--port N] [--to PEER] [--wait SECONDS]
                            [--pipe] [--host HOSTNAME] [--interface NAMES] [--mdns BACKEND]

    The peer-to-peer mode of the iPhone UDP peer app (NWListener + NWConnection over
    Bonjour): binds a UDP socket (IPv4 and IPv6, port N or any), advertises NAME under TYPE
    (default \(defaultType)) on that port, browses TYPE and prints the other peers as
    they come and go. Each line typed (or read from stdin) goes as one UTF-8 datagram, without
    the newline, to every peer found, or only to PEER. Every datagram that arrives is printed
    as NAME: text, NAME being the sending peer's name when it came from a peer's advertised
    address and port, else the source address:port (an iPhone sends from another port).

      + NAME (ADDRESS:PORT)   a peer appeared (where datagrams to it go)
      ~ NAME (ADDRESS:PORT)   its address or port changed
      - NAME                  it went away
      NAME: text              a datagram arrived

      --name NAME        the instance name to advertise (required; a taken name becomes "NAME (2)")
      --type TYPE        the service type, _name._udp (default \(defaultType))
      --port N           the UDP port (default 0: the kernel picks one)
      --to PEER          send only to the peer called PEER
      --wait SECONDS     how long lines wait for a peer after the end of input (default 10)
      --host HOSTNAME    the host name to publish (default: this machine's, up to the first dot)
      --interface NAMES  only these interfaces, comma-separated (default: every multicast one)
    \(MDNSOptions.help)
      --log-level LEVEL, --log-format F   as for serve (default level: warning)

    On a terminal, status lines start with "* ". With --pipe, or when stdin is not a terminal,
    they go to stderr and stdout carries only the lines above. A line typed before any peer
    is found waits (at most 100) and goes to the first peer that appears. At the end of input
    the peer sends what waits, withdraws its advertisement (goodbyes) and exits.
    --version prints the version and the commit it was built from. Exit codes: 0 end of input
    or SIGINT/SIGTERM, 1 could not start (UDP port or port 5353 unavailable, the name
    conflicted too often) or lines found no peer within --wait, 64 bad usage (also when
    SWITCHBOARD_FORBID_ADVERTISE=1: the test launcher's guard against multicast).
    """

  static func run(_ argv: [String]) -> Int32 {
    let args: Arguments
    let logOptions: LogOptions
    let mdns: MDNSOptions
    let port: Int?
    let wait: Double?
    do {
      args = try Arguments(
        argv,
        valued: Set(["name", "type", "port", "to", "wait", "host", "interface"]).union(LogOptions.flags)
          .union(MDNSOptions.flags),
        booleans: ["help", "pipe"])
      logOptions = try LogOptions(args, defaultLevel: .warning)
      mdns = try MDNSOptions(args)
      port = try args.int("port", in: 0...65535)
      wait = try args.double("wait")
    } catch {
      return Usage.fail("peer", "\(error)")
    }
    if let code = args.helpOrVersion(help) { return code }
    guard args.positional.isEmpty else {
      return Usage.fail("peer", "unexpected argument '\(args.positional[0])'")
    }
    guard let name = args.value("name"), !name.isEmpty, name.utf8.count <= 63 else {
      return Usage.fail("peer", "--name NAME is required (1 to 63 bytes)")
    }
    let type = args.value("type") ?? defaultType
    do {
      _ = try MDNSService(instance: name, type: type, port: 1).typeName()
    } catch {
      return Usage.fail("peer", "\(error.message)")
    }
    guard type.split(separator: ".")[1] == "_udp" else {
      return Usage.fail("peer", "--type must be a UDP service type (_name._udp), not '\(type)'")
    }
    if let to = args.value("to"), to.isEmpty {
      return Usage.fail("peer", "--to needs a peer name")
    }
    // A peer always advertises: under the test launcher (the root network namespace, where
    // nothing may multicast) it refuses, as serve does without --no-advertise.
    let forbid = ServeAdvertising.Options.forbidEnvironmentVariable
    if ProcessInfo.processInfo.environment[forbid] == "1" {
      Output.error(
        "switchboard peer: \(forbid)=1 (a test in the root network namespace, where nothing may multicast): "
          + "a peer always advertises; run it inside a network namespace of the test's own")
      return ExitCode.usage
    }
    var session = PeerSession.Configuration(target: args.value("to"))
    if let wait { session.drainTimeout = .milliseconds(Int64(wait * 1000)) }
    let options = PeerNode.Options(
      name: name, type: type, port: UInt16(port ?? 0), hostName: args.value("host"),
      interfaceNames: args.value("interface").map { $0.split(separator: ",").map(String.init) },
      backend: mdns.backend, session: session, interactive: !args.flag("pipe") && isatty(0) == 1)
    let node: PeerNode
    do {
      node = try PeerNode(options: options, logOptions: logOptions)
    } catch {
      Output.error("switchboard peer: \(error)")
      return ExitCode.failure
    }
    return node.run()
  }
}
