import Foundation
import SwitchboardChat
import SwitchboardServer

/// `serve`'s server API flags (docs/API.md): `--api-key KEY` (repeatable: any listed key is
/// accepted, so a key can be rotated) and `--api-key-file PATH` (one key a line).
enum ServeAPIOptions {
  static let valued: Set<String> = ["api-key", "api-key-file"]

  static let help = """
      --api-key KEY             turn on the server API under /api/ on the HTTP and HTTPS
                                ports, for requests carrying this key (Authorization:
                                Bearer KEY or X-API-Key: KEY); repeatable, any listed key
                                works (rotation); visible in `ps`: prefer --api-key-file
                                (docs/API.md). Off by default: /api/ answers 404
      --api-key-file F          the same, keys read from F: one a line, blank lines and
                                lines starting with # skipped; read at start
    """

  /// Reads the flags into `config`.
  /// - Throws: `Arguments.UsageError` for an unreadable or empty key file, or a key shorter
  ///   than 16 bytes.
  static func apply(_ args: Arguments, to config: inout ServerConfiguration) throws {
    var keys = args.values("api-key")
    for path in args.values("api-key-file") {
      guard let data = FileManager.default.contents(atPath: path) else {
        throw Arguments.UsageError(description: "--api-key-file: cannot read \(path)")
      }
      let found = ServerAPIKeys.keys(inFile: String(decoding: data, as: UTF8.self))
      guard !found.isEmpty else { throw Arguments.UsageError(description: "--api-key-file: no key in \(path)") }
      keys += found
    }
    guard !keys.isEmpty else { return }
    if let short = keys.first(where: { $0.utf8.count < minimumKeyLength }) {
      throw Arguments.UsageError(
        description: "--api-key: a key needs \(minimumKeyLength) bytes or more (this one has \(short.utf8.count))")
    }
    config.api.keys = ServerAPIKeys(keys)
    config.api.version = SwitchboardVersion.number
  }

  /// The shortest key accepted: 16 bytes (`openssl rand -hex 16` makes 32).
  static let minimumKeyLength = 16

  /// The node id `GET /api/info` and presence report: under `--redis` a random one the
  /// Redis broker uses too, else the instance name.
  static func nodeID(clustered: Bool, instance: String) -> String {
    clustered ? InMemoryHistoryStore.newEpoch() : instance
  }
}
