import Foundation
import SwitchboardIO
import SwitchboardTestSupport
import Testing

/// The history on disk is its owner's only: the data directory `serve` creates is 0700, the
/// database and SQLite's `-wal` and `-shm` files 0600; an older, shared one gets a warning.
extension PersistenceTests {
  private func mode(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
  }

  @Test func aFreshDataDirectoryIs0700AndItsDatabaseFiles0600() async throws {
    let parent = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: parent) }
    let dir = parent + "/data"
    let server = try await serve(dataDir: dir)
    defer { server.signal(SIGTERM) }
    // A kept message: the WAL has been written.
    let writer = try WebSocketTestClient(SocketAddress(host: "127.0.0.1", port: server.http))
    _ = try writer.nextJSON(type: "history")
    try writer.send(text: #"{"type":"message","data":{"text":"secret","ref":"s1"}}"#)
    _ = try writer.nextJSON(type: "ack")
    #expect(try mode(dir) == 0o700)
    for file in ["history.sqlite3", "history.sqlite3-wal", "history.sqlite3-shm"] {
      #expect(try mode(dir + "/" + file) == 0o600, "\(file)")
    }
    // No warning for what serve made itself.
    #expect(!(server.stdout + server.stderr).contains("history readable by other users"))
  }

  @Test func aSharedDataDirectoryFromBeforeIsLeftAsItIsWithAWarning() async throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir)
    let server = try await serve(dataDir: dir)
    defer { server.signal(SIGTERM) }
    try await eventually(timeout: .seconds(10), "the warning") {
      (server.stdout + server.stderr).contains("history readable by other users")
    }
    #expect((server.stdout + server.stderr).contains("chmod 700 \(dir)"))
    #expect(try mode(dir) == 0o755)
    #expect(try mode(dir + "/history.sqlite3") == 0o600)
  }
}
