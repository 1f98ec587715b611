import Foundation
import SwitchboardClient
import SwitchboardIO

/// `switchboard send URL TEXT…` (or `--service NAME`): one message over TCP or UDP, then exit.
enum SendCommand {
  static let help = """
    usage: switchboard send URL TEXT… [--name NAME]
           switchboard send --service NAME [--type TYPE] [--mdns BACKEND] TEXT… [--name NAME]

    Sends TEXT (the remaining arguments joined by spaces) as one message and exits.
    URL is tcp://host:port or udp://host:port, or a DNS-SD service as
    dnssd://NAME._switchboard._tcp.local (spaces as %20; ._udp for datagrams): it is
    looked up over mDNS for up to 5 s, then sent to its first address that answers.
    With --name the message is sent as NAME (iam:NAME first).
    \(ChatURL.help)
    --version prints the version and the commit it was built from.
    Exit codes: 0 sent, 1 could not find the service, connect or send, 64 bad usage.
    """

  static func run(_ argv: [String]) -> Int32 {
    let args: Arguments
    let target: ChatURL
    let words: [String]
    do {
      args = try Arguments(argv, valued: ChatURL.flags.union(["name"]), booleans: ["help"])
      if let code = args.helpOrVersion(help) { return code }
      (target, words) = try ChatURL.parse(args)
    } catch {
      Output.error("switchboard send: \(error)")
      return ExitCode.usage
    }
    guard !words.isEmpty else {
      Output.error("switchboard send: needs a URL and some text\n\n\(help)")
      return ExitCode.usage
    }
    guard target.endpoint.scheme == .tcp || target.endpoint.scheme == .udp else {
      let kind = target.endpoint.service?.type ?? "\(target.endpoint.scheme.rawValue)://"
      Output.error("switchboard send: \(kind) is not supported by send in this build (use tcp:// or udp://)")
      return ExitCode.usage
    }
    let text = words.joined(separator: " ")
    var payload = ""
    if let name = args.value("name") { payload += "iam:\(name)\n" }
    payload += "msg:\(text)\n"
    let candidates: [ChatEndpoint]
    do {
      candidates = try target.addresses()
    } catch {
      Output.error("switchboard send: \(error)")
      return ExitCode.failure
    }
    var lastError: (any Error)?
    for address in candidates {
      do {
        if address.scheme == .tcp {
          try BlockingSocket.sendTCP(host: address.host, port: address.port, bytes: Array(payload.utf8))
        } else {
          // One datagram per line: the UDP dialect is one message per datagram.
          let datagrams = payload.split(separator: "\n").map { Array($0.utf8) }
          try BlockingSocket.sendUDP(host: address.host, port: address.port, datagrams: datagrams)
        }
        return ExitCode.ok
      } catch {
        lastError = error
      }
    }
    Output.error("switchboard send: \(lastError.map { "\($0)" } ?? "no address for \(target.endpoint)")")
    return ExitCode.failure
  }
}
