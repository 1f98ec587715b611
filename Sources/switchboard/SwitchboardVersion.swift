/// The release this source tree is, and the line `--version` prints.
enum SwitchboardVersion {
  /// The version number: the one place it is written. Bump it when a release is tagged.
  static let number = "0.1.0"

  /// `switchboard 0.1.0 (commit abcdef1)`; the commit comes from BuildCommitPlugin.
  static var line: String { "switchboard \(number) (commit \(BuildCommit.id))" }
}
