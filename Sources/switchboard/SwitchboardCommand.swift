import Foundation
import SwitchboardServer

/// Exit codes (sysexits.h where one fits).
enum ExitCode {
  static let ok: Int32 = 0
  static let failure: Int32 = 1
  static let usage: Int32 = 64
  static let unavailable: Int32 = 69
}

@main
struct SwitchboardCommand {
  static let usage = """
    usage: switchboard COMMAND [OPTIONS]

    commands:
      serve            run the server (TCP lines 8080, UDP 8081, HTTP/WebSocket 1337)
      chat URL         interactive chat (ws://, wss://, tcp://, tls://, udp://; --pipe for scripts)
      send URL TEXT…   send one message and exit (ws, wss, tcp, tls, udp, dnssd://; --token)
      bench URL …      load-test a server (see `switchboard bench --help`)
      store-bench      messages stored per second by the SQLite history store
      browse [TYPE…]   list services found over mDNS (avahi-browse -r -p style; --json)
      advertise NAME TYPE PORT [KEY=VALUE…]   publish a service over mDNS until killed
      peer --name NAME UDP peer mode (iPhone seed 003): advertise, find peers, exchange datagrams
      token --sub NAME --secret S …   mint a signed token (JWT) for auth; --verify TOKEN checks one
      api COMMAND …    call the server API (publish, rooms, presence, history, disconnect, info)
      top URL          the admin console's live view in a terminal (serve --admin-password)
      help [COMMAND]   this text, or COMMAND's (the same as `switchboard COMMAND --help`)

    Run `switchboard COMMAND --help` for a command's options; `switchboard --version` (or
    `switchboard COMMAND --version`) prints the version and the commit it was built from.
    """

  /// The subcommands (what `switchboard help CMD` accepts).
  static let commands: Set = [
    "serve", "send", "bench", "store-bench", "chat", "advertise", "browse", "token", "peer", "api",
    "top",
  ]

  static func main() {
    var args = Array(CommandLine.arguments.dropFirst())
    guard var command = args.first else {
      Output.error(usage)
      exit(ExitCode.usage)
    }
    args.removeFirst()
    // `switchboard help CMD` is `switchboard CMD --help`.
    if command == "help", let topic = args.first, commands.contains(topic) {
      command = topic
      args = ["--help"]
    }
    // Before any thread exists, so every thread inherits the mask (StopSignals).
    if StopSignals.commands.contains(command) { StopSignals.block() }
    let code: Int32
    switch command {
    case "serve": code = ServeCommand.run(args)
    case "send": code = SendCommand.run(args)
    case "bench": code = BenchCommand.run(args)
    case "store-bench": code = StoreBenchCommand.run(args)
    case "chat": code = ChatCommand.run(args)
    case "advertise": code = AdvertiseCommand.run(args)
    case "browse": code = BrowseCommand.run(args)
    case "token": code = TokenCommand.run(args)
    case "api": code = APICommand.run(args)
    case "top": code = TopCommand.run(args)
    case "help" where args.isEmpty || args[0].hasPrefix("-"), "--help", "-h":
      Output.print(usage)
      code = ExitCode.ok
    case "help":
      Output.error("switchboard help: unknown command '\(args[0])'\nTry 'switchboard --help'.")
      code = ExitCode.usage
    case "--version":
      Output.print(SwitchboardVersion.line)
      code = ExitCode.ok
    case "peer": code = PeerCommand.run(args)
    default:
      Output.error("switchboard: unknown command '\(command)'\nTry 'switchboard --help'.")
      code = ExitCode.usage
    }
    exit(code)
  }
}

/// Unbuffered writes to stdout and stderr (Swift 6 forbids the C globals).
enum Output {
  static func print(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
  }
  static func error(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
  }
}
