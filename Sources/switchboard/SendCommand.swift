import Foundation
import SwitchboardIO

/// `switchboard send URL TEXT…`: one message over TCP or UDP, then exit.
enum SendCommand {
  static let help = """
    usage: switchboard send URL TEXT… [--name NAME]

    Sends TEXT (the remaining arguments joined by spaces) as one message and exits.
    URL is tcp://host:port or udp://host:port. With --name the message is sent as NAME
    (iam:NAME first). --version prints the version and the commit it was built from.
    Exit codes: 0 sent, 1 could not connect or send, 64 bad usage.
    """

  static func run(_ argv: [String]) -> Int32 {
    let args: Arguments
    do {
      args = try Arguments(argv, valued: ["name"], booleans: ["help"])
    } catch {
      Output.error("switchboard send: \(error)")
      return ExitCode.usage
    }
    if let code = args.helpOrVersion(help) { return code }
    guard args.positional.count >= 2 else {
      Output.error("switchboard send: needs a URL and some text\n\n\(help)")
      return ExitCode.usage
    }
    let target: ChatURL
    do {
      target = try ChatURL(args.positional[0])
    } catch {
      Output.error("switchboard send: \(error)")
      return ExitCode.usage
    }
    let text = args.positional.dropFirst().joined(separator: " ")
    var payload = ""
    if let name = args.value("name") { payload += "iam:\(name)\n" }
    payload += "msg:\(text)\n"
    do {
      switch target.scheme {
      case "tcp":
        try BlockingSocket.sendTCP(host: target.host, port: target.port, bytes: Array(payload.utf8))
      case "udp":
        // One datagram per line: the UDP dialect is one message per datagram.
        for line in payload.split(separator: "\n") {
          try BlockingSocket.sendUDP(host: target.host, port: target.port, bytes: Array(line.utf8))
        }
      default:
        Output.error("switchboard send: \(target.scheme):// is not supported by send in this build (use tcp:// or udp://)")
        return ExitCode.usage
      }
    } catch {
      Output.error("switchboard send: \(error)")
      return ExitCode.failure
    }
    return ExitCode.ok
  }
}
