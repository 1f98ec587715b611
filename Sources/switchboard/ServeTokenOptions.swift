import SwitchboardServer

/// `serve`'s token refresh flag (docs/SECURITY.md, "Token refresh"): `--token-refresh-lead`.
enum ServeTokenOptions {
  /// The flags that take a value, for `Arguments(valued:)`.
  static let valued: Set<String> = ["token-refresh-lead"]

  /// The lines of `serve --help` that describe them.
  static let help = """
      --token-refresh-lead SECONDS  how long before a connection's token runs out it is
                                asked for a fresh one (token_expiring frame, `* token expires
                                in N s` line), at most half the token's time left (default
                                60; 0: no notice, closed at expiry)
    """

  /// Reads the flags into `config`.
  /// - Throws: `Arguments.UsageError` for a value out of range, or the flag without a key.
  static func apply(_ args: Arguments, to config: inout ServerConfiguration) throws {
    guard let lead = try args.int("token-refresh-lead", in: 0...86400) else { return }
    guard config.tokenVerifier != nil else {
      throw Arguments.UsageError(
        description: "--token-refresh-lead needs --auth-secret, --auth-secret-file or --auth-public-key")
    }
    config.tokenRefreshLead = lead == 0 ? nil : .seconds(lead)
  }
}
