import Foundation

/// The `switchboard` executable the suites drive: `$SWITCHBOARD_BIN` when it names an
/// executable (scripts/test exports it), else `.build/debug/switchboard` under the
/// repository `root`; `nil` when neither exists (the suite is then skipped, saying why).
public func switchboardBinary(repository root: URL) -> String? {
  if let env = ProcessInfo.processInfo.environment["SWITCHBOARD_BIN"], FileManager.default.isExecutableFile(atPath: env) {
    return env
  }
  let candidate = root.appendingPathComponent(".build/debug/switchboard").path
  return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
}
