import Foundation
import SwitchboardStore

/// `switchboard store-bench`: messages stored per second by the SQLite history store.
enum StoreBenchCommand {
  static let help = """
    usage: switchboard store-bench [--dir PATH] [--messages N] [--rooms R] [--durability MODE]

    Appends N messages (default 100000) over R rooms (default 1) to a fresh SQLite
    history store in a temporary folder under PATH (default the system temp folder,
    removed afterwards) and reports messages stored per second, for each durability
    mode given (batched, fsync, none; default all three). --version prints the version
    and the commit it was built from.
    """

  static func run(_ argv: [String]) -> Int32 {
    let args: Arguments
    do {
      args = try Arguments(argv, valued: ["dir", "messages", "rooms", "durability"], booleans: ["help"])
      if let code = args.helpOrVersion(help) { return code }
      let messages = try args.int("messages", in: 1...100_000_000) ?? 100_000
      let rooms = try args.int("rooms", in: 1...100_000) ?? 1
      let dir = args.value("dir") ?? NSTemporaryDirectory()
      var modes: [SQLiteStoreConfiguration.Durability] = [.batched, .fsync, .none]
      if let d = args.value("durability") {
        switch d {
        case "batched": modes = [.batched]
        case "fsync": modes = [.fsync]
        case "none": modes = [.none]
        default: throw Arguments.UsageError(description: "--durability must be batched, fsync or none")
        }
      }
      for mode in modes {
        do {
          let report = try StoreBenchmark.run(directory: dir, messages: messages, rooms: rooms, durability: mode)
          Output.print(report.description)
        } catch {
          Output.error("switchboard store-bench: \(error)")
          return ExitCode.failure
        }
      }
      return ExitCode.ok
    } catch {
      return Usage.fail("store-bench", "\(error)")
    }
  }
}
