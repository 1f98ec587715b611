import Foundation
import SwitchboardIO
import SwitchboardServer

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What a listener's port flag (`--tcp-port`, `--udp-port`, `--http-port`, `--https-port`,
/// `--tls-port`) asks for. `0` keeps meaning "off" (scripts rely on it), so a port the kernel
/// chooses needs a word of its own: `any`. Whoever starts `serve` that way learns the port
/// from the `listening` line or the `--ports-file` (``BoundPorts``), so nothing has to guess
/// a free port and race another process to bind it.
enum PortChoice: Equatable {
  /// The listener is off (`0`).
  case off
  /// This port (1...65535).
  case fixed(Int)
  /// A port the kernel chooses (`any`).
  case any

  /// Sets a listener's port and whether it is on (`port` 0 with the listener on is what
  /// ``ServerConfiguration`` takes as "the kernel chooses").
  func apply(port: inout Int, enabled: inout Bool) {
    switch self {
    case .off:
      port = 0
      enabled = false
    case .fixed(let p):
      port = p
      enabled = true
    case .any:
      port = 0
      enabled = true
    }
  }
}

extension Arguments {
  /// The port flag `name`: a number in 0...65535 or `any`; `nil` when it was not given.
  func port(_ name: String) throws -> PortChoice? {
    guard let raw = value(name) else { return nil }
    if raw == "any" { return .any }
    guard let n = Int(raw), (0...65535).contains(n) else {
      throw UsageError(description: "--\(name) must be a port number in 0...65535 (0 turns it off) or 'any', not '\(raw)'")
    }
    return n == 0 ? .off : .fixed(n)
  }
}

/// Tells whoever started `serve` which ports its listeners bound, once all of them are
/// bound: a `listening` line on stdout and, with `--ports-file PATH`, a JSON object in a file
/// that appears whole (written beside it, then renamed). docs/OPERATIONS.md, "Ports".
enum BoundPorts {
  /// The listeners that are on, by the name of their flag without `-port`, in a fixed order.
  static func listeners(_ server: ChatServer) -> [(name: String, address: SocketAddress)] {
    let all: [(String, SocketAddress?)] = [
      ("tcp", server.tcpAddress), ("udp", server.udpAddress), ("http", server.httpAddress),
      ("tls", server.tlsAddress), ("https", server.httpsAddress),
    ]
    return all.compactMap { name, address in address.map { (name, $0) } }
  }

  /// `listening tcp=127.0.0.1:41234 udp=127.0.0.1:41235 http=127.0.0.1:41236` (IPv6
  /// addresses in brackets); `listening` alone when every listener is off.
  static func line(_ listeners: [(name: String, address: SocketAddress)]) -> String {
    (["listening"] + listeners.map { name, address in
      let host = address.family == AF_INET6 ? "[\(address.ipAddress)]" : address.ipAddress
      return "\(name)=\(host):\(address.port)"
    }).joined(separator: " ")
  }

  /// `{"tcp":41234,"udp":41235,"http":41236}` and a newline.
  static func json(_ listeners: [(name: String, address: SocketAddress)]) -> String {
    "{" + listeners.map { "\"\($0.name)\":\($0.address.port)" }.joined(separator: ",") + "}\n"
  }

  /// Removes a ports file left by an earlier run, so that a script waiting for it to
  /// appear never reads stale ports. Call it before the listeners bind.
  static func removeStale(_ path: String?) {
    if let path { unlink(path) }
  }

  /// Prints the `listening` line and writes `path` (when given) atomically.
  static func report(_ server: ChatServer, file path: String?) throws {
    let bound = listeners(server)
    if let path {
      let temporary = path + ".\(getpid()).tmp"
      do {
        try Data(json(bound).utf8).write(to: URL(fileURLWithPath: temporary))
      } catch {
        throw ServePortsError(description: "cannot write --ports-file \(path): \(error.localizedDescription)")
      }
      guard rename(temporary, path) == 0 else {
        let reason = String(cString: strerror(errno))
        unlink(temporary)
        throw ServePortsError(description: "cannot write --ports-file \(path): \(reason)")
      }
    }
    Output.print(line(bound))
  }
}

/// The ports file could not be written (serve then stops: whoever asked for it would wait
/// for it in vain).
struct ServePortsError: Error, CustomStringConvertible {
  let description: String
}
