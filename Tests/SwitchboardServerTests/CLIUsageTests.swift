import Foundation
import SwitchboardTestSupport
import Testing

/// One shape of CLI, on the real binary: every subcommand answers a usage error with a line
/// naming the problem and `Try 'switchboard CMD --help'.` (exit 64), and `switchboard help
/// CMD` is `switchboard CMD --help`.
@Suite(
  .onTestThreads,
  .enabled(ifAvailable: Executables.switchboard != nil, "build the switchboard executable first"))
struct CLIUsageTests {
  let binary = Executables.switchboard ?? ""

  static let commands = [
    "chat", "send", "bench", "store-bench", "browse", "advertise", "token", "peer", "serve",
  ]

  /// An unknown option, and a missing argument where the command needs one.
  static let mistakes: [(args: [String], problem: String)] =
    commands.map { ([$0, "--bogus"], "unknown option --bogus") } + [
      (["chat"], "needs a URL or --service NAME"),
      (["send", "tcp://127.0.0.1:1"], "needs a URL and some text"),
      (["send", "tcp://127.0.0.1:1", ""], "needs a URL and some text"),  // an empty message is none
      (["send", "tcp://127.0.0.1:1", " ", " "], "needs a URL and some text"),
      (["bench"], "needs a URL"),
      (["advertise", "x"], "needs NAME TYPE PORT"),
      (["token"], "needs --sub NAME (or --verify TOKEN)"),
      (["peer"], "--name NAME is required (1 to 63 bytes)"),
      (["serve", "--tcp-port", "70000", "--no-advertise"], "--tcp-port"),
      (["serve", "--auth-proxy", "ftp://backend/auth", "--no-advertise"], "--auth-proxy: invalid URL: 'ftp://backend/auth' is not an http://"),
      (["serve", "--auth-proxy-timeout", "2", "--no-advertise"], "--auth-proxy-timeout needs --auth-proxy"),
      (["serve", "--auth-proxy", "http://127.0.0.1:9/", "--auth-proxy-cache", "301", "--no-advertise"], "--auth-proxy-cache must be 0-300"),
      (["send", "tcp://127.0.0.1:1", "x", "--timeout", "0"], "--timeout must be a number"),
    ]

  @Test(arguments: mistakes)
  func aUsageErrorIsOneLineAndAHintWithExit64(args: [String], problem: String) async throws {
    // A serve that got past its arguments would advertise: never here (the launcher's
    // SWITCHBOARD_FORBID_ADVERTISE would refuse it, exit 64 for the wrong reason).
    let run = try ChildProcess(binary, args + (args[0] == "serve" ? ["--no-advertise"] : []))
    #expect(try await run.waitForExit() == 64)
    let lines = run.stderr.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count == 3 && lines[2].isEmpty, "\(run.stderr)")
    #expect(
      lines.first?.hasPrefix("switchboard \(args[0]): ") == true && lines.first?.contains(problem) == true)
    #expect(lines.dropFirst().first == "Try 'switchboard \(args[0]) --help'.")
    #expect(run.stdout.isEmpty)
  }

  @Test(arguments: commands)
  func helpCommandIsTheCommandsHelp(command: String) async throws {
    let viaHelp = try ChildProcess(binary, ["help", command])
    let direct = try ChildProcess(binary, [command, "--help"])
    #expect(try await viaHelp.waitForExit() == 0)
    #expect(try await direct.waitForExit() == 0)
    #expect(viaHelp.stdout == direct.stdout)
    #expect(viaHelp.stdout.contains("usage: switchboard \(command)"))
  }

  @Test func anUnknownCommandOrHelpTopicIsAUsageError() async throws {
    for args in [["frobnicate"], ["help", "frobnicate"]] {
      let run = try ChildProcess(binary, args)
      #expect(try await run.waitForExit() == 64)
      #expect(
        run.stderr.hasSuffix("unknown command 'frobnicate'\nTry 'switchboard --help'.\n"), "\(run.stderr)")
    }
  }

  /// `chat --help` describes every flag chat takes, and the command language.
  @Test func chatHelpDescribesEveryFlagAndTheCommands() async throws {
    let run = try ChildProcess(binary, ["chat", "--help"])
    #expect(try await run.waitForExit() == 0)
    for flag in [
      "--name NAME ", "--room ROOM ", "--pipe ", "--service NAME ", "--type TYPE ", "--mdns ",
      "--token TOKEN ",
      "--ca-file PEM ", "--insecure ", "--log-level LEVEL ", "--log-format FMT ", "--version ",
    ] {
      #expect(run.stdout.contains("\n  " + flag), "chat --help does not describe \(flag)")
    }
    for command in [
      "/join ROOM", "/who", "/rooms", "/nick NAME", "/me ACTION", "/history", "/help", "/quit", "//TEXT",
    ] {
      #expect(run.stdout.contains("  " + command), "chat --help does not list \(command)")
    }
  }
}

/// Every flag a command takes is in its help: each flag any command's help names is tried on
/// every command (`--FLAG=x --zz-not-a-flag`, which never runs anything: a flag the command
/// does not take is `unknown option --FLAG`, any other answer means it took it), and each
/// one taken must be in that command's `--help`.
@Suite(
  .onTestThreads,
  .enabled(ifAvailable: Executables.switchboard != nil, "build the switchboard executable first"))
struct CLIHelpCoverageTests {
  let binary = Executables.switchboard ?? ""

  private func flags(in help: String) -> Set<String> {
    Set(help.matches(of: try! Regex(#"--[a-z][a-z0-9-]*[a-z0-9]"#)).map { String(help[$0.range]) })
  }

  @Test func everyFlagACommandTakesIsInItsHelp() async throws {
    var helps: [String: String] = [:]
    for command in CLIUsageTests.commands {
      let help = try ChildProcess(binary, [command, "--help"])
      #expect(try await help.waitForExit() == 0)
      helps[command] = help.stdout
    }
    let candidates = helps.values.reduce(into: Set<String>()) { $0.formUnion(flags(in: $1)) }.subtracting([
      "--help"
    ])
    #expect(
      candidates.count > 80, "\(candidates.count) flags found in the helps: is the pattern still right?")
    // One command's probes after another, the commands side by side (a few hundred runs).
    let binary = self.binary
    let takenBy = try await withThrowingTaskGroup(of: (String, [String]).self) { group in
      for command in CLIUsageTests.commands {
        group.addTask {
          var taken: [String] = []
          for flag in candidates.sorted() {
            let probe = try ChildProcess(binary, [command, flag + "=x", "--zz-not-a-flag"])
            #expect(try await probe.waitForExit() == 64, "\(command) \(flag)=x ran")
            if !probe.stderr.contains("unknown option \(flag)\n") { taken.append(flag) }
          }
          return (command, taken)
        }
      }
      return try await group.reduce(into: [String: [String]]()) { $0[$1.0] = $1.1 }
    }
    #expect(takenBy.count == CLIUsageTests.commands.count)
    for (command, taken) in takenBy {
      let missing = Set(taken).subtracting(flags(in: helps[command]!))
      #expect(missing.isEmpty, "switchboard \(command) takes \(missing.sorted()) but its --help does not say")
      #expect(taken.contains("--version"), "\(command): the probe found no --version")
    }
  }
}
