import Foundation

/// Where the suites find the programs they run: this package's `switchboard` binary and the
/// system's tools (`nc`, `openssl`, `python3`, `node`, `tmux`…). One place, one rule each,
/// no fixed install paths: the environment decides.
public enum Executables {
  /// The `switchboard` executable the suites drive: `$SWITCHBOARD_BIN` when it names an
  /// executable (scripts/test exports it); else the one built beside the running test
  /// bundle (`swift build --build-tests` puts both in the same `.build/<config>/` folder,
  /// whatever the scratch path); else `.build/debug` or `.build/release` of this checkout.
  /// `nil` when none exists: the suite is then skipped, saying why.
  public static var switchboard: String? {
    if let env = ProcessInfo.processInfo.environment["SWITCHBOARD_BIN"], isExecutable(env) {
      return env
    }
    var dir = URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent()
    for _ in 0..<4 {
      let candidate = dir.appendingPathComponent("switchboard").path
      if isExecutable(candidate) { return candidate }
      dir = dir.deletingLastPathComponent()
    }
    return ["debug", "release"].lazy.map { repositoryRoot.appendingPathComponent(".build/\($0)/switchboard").path }
      .first(where: isExecutable)
  }

  /// The first executable named `name` on `PATH`; `nil` when there is none (the test that
  /// needs it is skipped, saying why).
  public static func tool(_ name: String) -> String? { tools(name).first }

  /// Every executable named `name` on `PATH`, in `PATH` order (for a tool that must also
  /// have a module: `python3` with `websockets`).
  public static func tools(_ name: String) -> [String] {
    guard !name.contains("/") else { return isExecutable(name) ? [name] : [] }
    var seen = Set<String>()
    return (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map {
      URL(fileURLWithPath: String($0)).appendingPathComponent(name).path
    }.filter { isExecutable($0) && seen.insert(URL(fileURLWithPath: $0).resolvingSymlinksInPath().path).inserted }
  }

  /// The checkout this file is in (its `Package.swift` folder).
  public static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  private static func isExecutable(_ path: String) -> Bool {
    var isDirectory: ObjCBool = false
    return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
      && FileManager.default.isExecutableFile(atPath: path)
  }
}
