import Foundation
import SwitchboardIO

/// `switchboard send URL TEXT…`: one message over TCP or UDP, then exit.
enum SendCommand {
  static let help = """
    usage: switchboard send URL TEXT… [--name NAME]

    Sends TEXT (the remaining arguments joined by spaces) as one message and exits.
    URL is tcp://host:port or udp://host:port. With --name the message is sent as NAME
    (iam:NAME first). --version prints the version and the commit it was built from.
    Exit codes: 0 sent, 1 could not connect or send, 64 bad usage.
    """

  static func run(_ argv: [String]) -> Int32 {
    let args: Arguments
    do {
      args = try Arguments(argv, valued: ["name"], booleans: ["help"])
    } catch {
      Output.error("switchboard send: \(error)")
      return ExitCode.usage
    }
    if let code = args.helpOrVersion(help) { return code }
    guard args.positional.count >= 2 else {
      Output.error("switchboard send: needs a URL and some text\n\n\(help)")
      return ExitCode.usage
    }
    let target: ChatURL
    do {
      target = try ChatURL(args.positional[0])
    } catch {
      Output.error("switchboard send: \(error)")
      return ExitCode.usage
    }
    let text = args.positional.dropFirst().joined(separator: " ")
    var payload = ""
    if let name = args.value("name") { payload += "iam:\(name)\n" }
    payload += "msg:\(text)\n"
    do {
      switch target.scheme {
      case "tcp":
        try BlockingSocket.sendTCP(host: target.host, port: target.port, bytes: Array(payload.utf8))
      case "udp":
        // One datagram per line: the UDP dialect is one message per datagram.
        for line in payload.split(separator: "\n") {
          try BlockingSocket.sendUDP(host: target.host, port: target.port, bytes: Array(line.utf8))
        }
      default:
        Output.error("switchboard send: \(target.scheme):// is not supported by send in this build (use tcp:// or udp://)")
        return ExitCode.usage
      }
    } catch {
      Output.error("switchboard send: \(error)")
      return ExitCode.failure
    }
    return ExitCode.ok
  }
}

/// A parsed `scheme://host:port/path` URL.
struct ChatURL {
  struct Invalid: Error, CustomStringConvertible { let description: String }
  let scheme: String
  let host: String
  let port: Int
  let path: String

  static let defaultPorts = ["tcp": 8080, "udp": 8081, "ws": 1337, "wss": 443, "tls": 8443]

  init(_ raw: String) throws {
    guard let sep = raw.range(of: "://") else {
      throw Invalid(description: "'\(raw)' is not a URL like tcp://host:8080")
    }
    scheme = raw[..<sep.lowerBound].lowercased()
    guard let defaultPort = Self.defaultPorts[scheme] else {
      throw Invalid(description: "unknown scheme '\(scheme)' (tcp, udp, ws, wss, tls)")
    }
    var rest = raw[sep.upperBound...]
    if let slash = rest.firstIndex(of: "/") {
      path = String(rest[slash...])
      rest = rest[..<slash]
    } else {
      path = "/"
    }
    var hostPart = String(rest)
    var portValue = defaultPort
    if hostPart.hasPrefix("[") {
      guard let close = hostPart.firstIndex(of: "]") else { throw Invalid(description: "bad IPv6 literal in '\(raw)'") }
      let after = hostPart[hostPart.index(after: close)...]
      if after.hasPrefix(":") {
        guard let p = Int(after.dropFirst()), (1...65535).contains(p) else { throw Invalid(description: "bad port in '\(raw)'") }
        portValue = p
      }
      hostPart = String(hostPart[hostPart.index(after: hostPart.startIndex)..<close])
    } else if let colon = hostPart.lastIndex(of: ":") {
      guard let p = Int(hostPart[hostPart.index(after: colon)...]), (1...65535).contains(p) else {
        throw Invalid(description: "bad port in '\(raw)'")
      }
      portValue = p
      hostPart = String(hostPart[..<colon])
    }
    guard !hostPart.isEmpty else { throw Invalid(description: "no host in '\(raw)'") }
    host = hostPart
    port = portValue
  }
}

/// Plain blocking sockets for the one-shot `send` command.
enum BlockingSocket {
  static func sendTCP(host: String, port: Int, bytes: [UInt8]) throws {
    let address = try SocketAddress.resolve(host: host, port: port)
    let fd = socket(address.family, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw IOError(call: "socket", errno: errno) }
    defer { close(fd) }
    let rc = address.withSockAddr { connect(fd, $0, $1) }
    guard rc == 0 else { throw IOError(call: "connect", errno: errno, detail: address.description) }
    var sent = 0
    while sent < bytes.count {
      let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      if n < 0 {
        if errno == EINTR { continue }
        throw IOError(call: "send", errno: errno)
      }
      sent += n
    }
    // Orderly close: the server reads everything before it sees EOF.
    shutdown(fd, Int32(SHUT_WR))
    var scratch = [UInt8](repeating: 0, count: 4096)
    var tv = timeval(tv_sec: 2, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    while recv(fd, &scratch, scratch.count, 0) > 0 {}
  }

  static func sendUDP(host: String, port: Int, bytes: [UInt8]) throws {
    let address = try SocketAddress.resolve(host: host, port: port)
    let fd = socket(address.family, Int32(SOCK_DGRAM.rawValue), 0)
    guard fd >= 0 else { throw IOError(call: "socket", errno: errno) }
    defer { close(fd) }
    let n = address.withSockAddr { sa, len in bytes.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, 0, sa, len) } }
    guard n >= 0 else { throw IOError(call: "sendto", errno: errno, detail: address.description) }
  }
}
