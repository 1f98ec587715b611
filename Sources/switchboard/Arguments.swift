/// A small command-line parser: `--flag VALUE`, `--flag=VALUE`, boolean `--flag`, and
/// positional arguments. Unknown flags are errors, so typos never pass silently.
/// `--version` is accepted by every command (see ``helpOrVersion(_:)``).
struct Arguments {
  struct UsageError: Error, CustomStringConvertible {
    let description: String
  }

  private(set) var positional: [String] = []
  private var values: [String: String] = [:]
  /// Every value of each valued flag, in order (for repeatable flags).
  private var allValues: [String: [String]] = [:]
  private var switches: Set<String> = []

  /// Parses `args` given the flags that take a value and the boolean ones.
  init(_ args: [String], valued: Set<String>, booleans: Set<String>) throws {
    let booleans = booleans.union(["version"])
    var i = 0
    var onlyPositional = false
    while i < args.count {
      let arg = args[i]
      i += 1
      if onlyPositional || !arg.hasPrefix("--") || arg == "-" {
        if arg == "-h" && !onlyPositional {
          switches.insert("help")
          continue
        }
        positional.append(arg)
        continue
      }
      if arg == "--" {
        onlyPositional = true
        continue
      }
      var name = String(arg.dropFirst(2))
      var inline: String? = nil
      if let eq = name.firstIndex(of: "=") {
        inline = String(name[name.index(after: eq)...])
        name = String(name[..<eq])
      }
      if booleans.contains(name) {
        guard inline == nil else { throw UsageError(description: "--\(name) takes no value") }
        switches.insert(name)
      } else if valued.contains(name) {
        if let inline {
          values[name] = inline
        } else {
          guard i < args.count else { throw UsageError(description: "--\(name) needs a value") }
          values[name] = args[i]
          i += 1
        }
        allValues[name, default: []].append(values[name]!)
      } else {
        throw UsageError(description: "unknown option --\(name)")
      }
    }
  }

  func flag(_ name: String) -> Bool { switches.contains(name) }

  /// Answers `--help` (prints `help`) and `--version` (prints the version line) with exit
  /// code 0; `nil` when neither was asked for and the command should run.
  func helpOrVersion(_ help: String) -> Int32? {
    if flag("help") {
      Output.print(help)
      return ExitCode.ok
    }
    if flag("version") {
      Output.print(SwitchboardVersion.line)
      return ExitCode.ok
    }
    return nil
  }
  func value(_ name: String) -> String? { values[name] }

  /// Every value given for a repeatable flag, in the order given (`value` has the last).
  func values(_ name: String) -> [String] { allValues[name] ?? [] }

  func int(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
    guard let raw = values[name] else { return nil }
    guard let n = Int(raw), range.contains(n) else {
      throw UsageError(description: "--\(name) must be a number in \(range.lowerBound)...\(range.upperBound), not '\(raw)'")
    }
    return n
  }

  func double(_ name: String) throws -> Double? {
    guard let raw = values[name] else { return nil }
    guard let n = Double(raw), n >= 0 else {
      throw UsageError(description: "--\(name) must be a non-negative number, not '\(raw)'")
    }
    return n
  }
}

/// The one shape of a usage error, for every subcommand: a line naming the problem, a line
/// pointing at the command's help, exit code 64 (`EX_USAGE`).
enum Usage {
  /// Prints `switchboard COMMAND: PROBLEM` and `Try 'switchboard COMMAND --help'.` to
  /// stderr; returns ``ExitCode/usage``.
  static func fail(_ command: String, _ problem: Any) -> Int32 {
    Output.error("switchboard \(command): \(problem)\nTry 'switchboard \(command) --help'.")
    return ExitCode.usage
  }
}
