import Foundation
import SwitchboardIO
import SwitchboardTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// One `switchboard serve --redis …` process on loopback ports the kernel chose, for the
/// process-level scale-out tests (`ScaleOutProcessTests`).
final class ScaleOutNode: Sendable {
  let tcpPort: Int
  let udpPort: Int
  let httpPort: Int
  let process: ServeProcess

  /// Starts a node on `redisPort` and waits for its banner.
  /// - Parameter timeout: `--redis-timeout` (seconds): short, so outages show within a test.
  convenience init(redisPort: Int, timeout: Double = 0.5, room: String = "chaos") async throws {
    try await self.init(redisPorts: [redisPort], timeout: timeout, room: room)
  }

  /// Starts a node given every port of `redisPorts` as a `--redis` URL (one server, or the
  /// seeds of a cluster) and waits until it reports its ports. `logLevel` `info` also logs its node id
  /// (``redisClientName``).
  init(
    redisPorts: [Int], timeout: Double = 0.5, room: String = "chaos",
    logLevel: String = "notice", extraArguments: [String] = []
  ) async throws {
    let redis = redisPorts.flatMap { ["--redis", "redis://127.0.0.1:\($0)"] }
    process = try await ServeProcess.start(
      redis + [
        "--redis-timeout", String(timeout), "--room", room, "--ephemeral", "--loops", "1", "--log-level", logLevel,
      ] + extraArguments)
    tcpPort = process.tcp
    udpPort = process.udp
    httpPort = process.http
  }

  deinit { process.stop() }

  var isRunning: Bool { process.isRunning }

  /// The name the node's Redis connections carry (`switchboard-<node id>`), from its
  /// `rooms shared through Redis … node=…` line (logged at `info`).
  var redisClientName: String? {
    let lines = process.stderr.split(separator: "\n")
    guard let line = lines.first(where: { $0.contains("rooms shared through Redis") }),
      let range = line.range(of: "node=")
    else { return nil }
    return "switchboard-" + line[range.upperBound...].prefix { !$0.isWhitespace && $0 != "\"" }
  }

  /// Kills the node (SIGKILL): no goodbye, no presence removal.
  func kill() { process.stop() }

  /// `GET /readyz`: the status code and the body.
  func readiness() -> (status: Int, body: String) {
    guard let text = try? Self.get("/readyz", port: httpPort) else { return (0, "") }
    let status = text.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
    let body = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
    return (status, body)
  }

  /// Waits until `/readyz` answers `status`.
  func waitForReadiness(_ status: Int, timeout: Duration = .seconds(15)) throws -> String {
    var last = (status: 0, body: "")
    let seen = eventually(timeout: timeout) {
      last = readiness()
      return last.status == status
    }
    guard seen else { throw TestFailure("/readyz stayed \(last.status) \(last.body), not \(status)") }
    return last.body
  }

  /// One HTTP/1.1 request with `Connection: close`; the whole answer.
  static func get(_ path: String, port: Int) throws -> String {
    let fd = Posix.makeSocket(family: AF_INET, type: Posix.streamType)
    guard fd >= 0 else { throw TestFailure("socket: errno \(errno)") }
    defer { close(fd) }
    var timeout = timeval(tv_sec: 2, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    guard blockingConnect(fd, to: try .init(host: "127.0.0.1", port: port)) == 0 else {
      throw TestFailure("connect to \(port) failed")
    }
    let request = Array("GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)
    _ = request.withUnsafeBytes { Posix.send(fd, $0.baseAddress, $0.count) }
    var answer: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      guard n > 0 else { break }
      answer += buffer[0..<n]
    }
    return String(decoding: answer, as: UTF8.self)
  }
}
