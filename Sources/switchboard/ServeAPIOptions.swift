import Foundation
import SwitchboardChat
import SwitchboardLog
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
                                lines starting with # skipped; read again on SIGHUP
    """

  /// Reads the flags into `config`.
  /// - Throws: `Arguments.UsageError` for an unreadable or empty key file, or a key shorter
  ///   than 16 bytes.
  static func apply(_ args: Arguments, to config: inout ServerConfiguration) throws {
    let keys = try readKeys(args)
    guard !keys.isEmpty else { return }
    config.api.keys = ServerAPIKeys(keys)
    config.api.version = SwitchboardVersion.number
  }

  /// Every key of `--api-key` and `--api-key-file`.
  /// - Throws: `Arguments.UsageError` for an unreadable or empty file, a short key.
  static func readKeys(_ args: Arguments) throws -> [String] {
    try readKeys(values: args.values("api-key"), files: args.values("api-key-file"))
  }

  /// The keys `values` and those of the key files `files`.
  static func readKeys(values: [String], files: [String]) throws -> [String] {
    var keys = values
    for path in files {
      guard let data = FileManager.default.contents(atPath: path) else {
        throw Arguments.UsageError(description: "--api-key-file: cannot read \(path)")
      }
      let found = ServerAPIKeys.keys(inFile: String(decoding: data, as: UTF8.self))
      guard !found.isEmpty else { throw Arguments.UsageError(description: "--api-key-file: no key in \(path)") }
      keys += found
    }
    if let short = keys.first(where: { $0.utf8.count < minimumKeyLength }) {
      throw Arguments.UsageError(
        description: "--api-key: a key needs \(minimumKeyLength) bytes or more (this one has \(short.utf8.count))")
    }
    return keys
  }

  /// Whether SIGHUP reloads keys (`--api-key-file` was given).
  static func reloads(_ args: Arguments) -> Bool { !args.values("api-key-file").isEmpty }

  /// What SIGHUP does for the API: reads `--api-key` and `--api-key-file` again and accepts
  /// those keys from then on; a file that cannot be read or holds no usable key keeps the
  /// old keys (logged either way). `nil` without a key file.
  static func reload(_ args: Arguments, _ config: ServerConfiguration, logger: Log) -> (@Sendable () -> Void)? {
    guard reloads(args), let current = config.api.keys else { return nil }
    let values = args.values("api-key")
    let files = args.values("api-key-file")
    return {
      do {
        let fresh = try readKeys(values: values, files: files)
        current.replace(with: fresh)
        logger.notice("api keys reloaded", metadata: ["keys": "\(current.count)"])
      } catch {
        logger.error("api key reload failed; keeping the old keys", metadata: ["error": "\(error)"])
      }
    }
  }

  /// The shortest key accepted: 16 bytes (`openssl rand -hex 16` makes 32).
  static let minimumKeyLength = 16

  /// The node id `GET /api/info` and presence report: under `--redis` a random one the
  /// Redis broker uses too, else the instance name.
  static func nodeID(clustered: Bool, instance: String) -> String {
    clustered ? InMemoryHistoryStore.newEpoch() : instance
  }
}
