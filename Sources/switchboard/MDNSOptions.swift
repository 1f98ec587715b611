import SwitchboardDiscovery

/// `--mdns auto|builtin|system`: which DNS-SD backend the discovery commands use
/// (``DiscoveryBackend``).
struct MDNSOptions {
  /// The flag, for `Arguments(valued:)`.
  static let flags: Set<String> = ["mdns"]
  /// The help text's line for the flag.
  static let help = """
      --mdns BACKEND     auto (default: the system's DNS-SD daemon when it answers; on macOS
                         always mDNSResponder), builtin (Linux only) or system
    """

  /// The backend asked for (default ``DiscoveryBackend/auto``).
  var backend = DiscoveryBackend.auto

  /// Reads `--mdns` from `args`.
  /// - Throws: `Arguments.UsageError` for a backend that does not exist.
  init(_ args: Arguments) throws {
    if let name = args.value("mdns") {
      guard let parsed = DiscoveryBackend(rawValue: name) else {
        throw Arguments.UsageError(description: "--mdns must be auto, builtin or system, not '\(name)'")
      }
      backend = parsed
    }
  }
}
