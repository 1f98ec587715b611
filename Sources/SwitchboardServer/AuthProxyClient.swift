#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
import SwitchboardAuth
import SwitchboardHTTP
import SwitchboardIO
import Synchronization

/// The smallest outbound HTTP/1.1 client the auth proxy needs: one `POST` of a JSON body per
/// question, `Connection: close`, on a thread of its own (blocking calls with the remaining
/// time as their socket timeouts), so no event loop ever waits on the backend. At most
/// ``AuthProxyConfiguration/maxInFlight`` questions are out at once; the answer is read up
/// to ``AuthProxyAnswer/maxBytes``. The completion is called exactly once, on that thread;
/// the session also arms a loop timer at the timeout, so a thread stuck (in DNS, say) past
/// it changes nothing: its answer then finds no pending connection and is dropped.
final class AuthProxyClient: Sendable {
  let configuration: AuthProxyConfiguration
  private let inFlight = Atomic<Int>(0)

  init(configuration: AuthProxyConfiguration) { self.configuration = configuration }

  /// Posts `body` and calls `completion` with the decoded answer or why there is none.
  func ask(_ body: String, completion: @escaping @Sendable (Result<AuthProxyAnswer, AuthProxyFailure>) -> Void) {
    guard inFlight.add(1, ordering: .relaxed).newValue <= configuration.maxInFlight else {
      inFlight.subtract(1, ordering: .relaxed)
      completion(.failure(.busy))
      return
    }
    let configuration = self.configuration
    let started = Deadline.now()
    do {
      try SystemThread.start(name: "sb-auth-proxy") { [self] in
        let result = Self.post(body, configuration: configuration, deadline: started.adding(configuration.timeout))
        inFlight.subtract(1, ordering: .relaxed)
        completion(result)
      }
    } catch {
      inFlight.subtract(1, ordering: .relaxed)
      completion(.failure(.unreachable("cannot start a thread: \(error)")))
    }
  }

  private static func post(
    _ body: String, configuration: AuthProxyConfiguration, deadline: Deadline
  ) -> Result<AuthProxyAnswer, AuthProxyFailure> {
    let url = configuration.url
    let address: SocketAddress
    do {
      address = try SocketAddress.resolve(host: url.host, port: url.port)
    } catch {
      return .failure(.unreachable("cannot resolve \(url.host): \(error)"))
    }
    let fd = Posix.makeSocket(family: Int32(address.family), type: Posix.streamType)
    guard fd >= 0 else { return .failure(.unreachable("socket: errno \(errno)")) }
    defer { _ = Posix.close(fd) }
    guard setTimeouts(fd, until: deadline) else { return .failure(.timedOut) }
    let connected = address.withSockAddr { Posix.connect(fd, $0, $1) }
    guard connected == 0 else {
      return .failure(Deadline.now() < deadline ? .unreachable("connect: errno \(errno)") : .timedOut)
    }
    let bodyBytes = Array(body.utf8)
    let head =
      "POST \(url.path) HTTP/1.1\r\nHost: \(url.hostHeader)\r\nContent-Type: application/json\r\n"
      + "Accept: application/json\r\nUser-Agent: switchboard-auth-proxy\r\nContent-Length: \(bodyBytes.count)\r\n"
      + "Connection: close\r\n\r\n"
    let request = Array(head.utf8) + bodyBytes
    var sent = 0
    while sent < request.count {
      guard setTimeouts(fd, until: deadline) else { return .failure(.timedOut) }
      let n = request[sent...].withUnsafeBytes { Posix.send(fd, $0.baseAddress, $0.count, flags: Posix.noSignalFlag) }
      guard n > 0 else { return .failure(errno == EAGAIN || errno == EWOULDBLOCK ? .timedOut : .unreachable("send: errno \(errno)")) }
      sent += n
    }
    var parser = HTTPResponseParser()
    var status: Int? = nil
    var length: Int? = nil
    var answer: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 8192)
    while true {
      guard setTimeouts(fd, until: deadline) else { return .failure(.timedOut) }
      let n = buffer.withUnsafeMutableBytes { Posix.recv(fd, $0.baseAddress, $0.count) }
      if n < 0 { return .failure(errno == EAGAIN || errno == EWOULDBLOCK ? .timedOut : .unreachable("recv: errno \(errno)")) }
      if n == 0 { break }
      if status == nil {
        parser.append(buffer[..<n])
        do {
          guard let parsed = try parser.next() else { continue }
          status = parsed.status
          length = parsed.headers["Content-Length"].flatMap { Int($0.trimmingSpacesAndTabs()) }
          answer = parser.takeRemainingBytes()
        } catch {
          return .failure(.badResponse("\(error)"))
        }
      } else {
        answer += buffer[..<n]
      }
      guard answer.count <= AuthProxyAnswer.maxBytes else { return .failure(.badAnswer(.tooLarge)) }
      if let length, answer.count >= length { break }
    }
    guard let status else { return .failure(.badResponse("closed before a response")) }
    guard (200..<300).contains(status) else { return .failure(.status(status)) }
    if let length { answer = Array(answer.prefix(length)) }
    do {
      return .success(try AuthProxyAnswer.decode(answer))
    } catch {
      return .failure(.badAnswer(error))
    }
  }

  /// Sets the send and receive timeouts to what is left until `deadline`; `false` when
  /// nothing is left.
  private static func setTimeouts(_ fd: Int32, until deadline: Deadline) -> Bool {
    let now = Deadline.now()
    guard now < deadline else { return false }
    let left = deadline.nanoseconds - now.nanoseconds
    var tv = timeval()
    tv.tv_sec = .init(left / 1_000_000_000)
    tv.tv_usec = .init(max(1, (left % 1_000_000_000) / 1000))
    let size = socklen_t(MemoryLayout<timeval>.size)
    _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, size)
    _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, size)
    return true
  }
}

/// Why the auth proxy gave no usable answer: the connection is refused all the same (fail
/// closed) with ``answer``, and the failure is counted and logged.
enum AuthProxyFailure: Error, Sendable, Hashable, CustomStringConvertible {
  /// No answer within `--auth-proxy-timeout`.
  case timedOut
  /// The backend could not be reached (resolution, connect, send or receive failed).
  case unreachable(String)
  /// It answered with a status outside 2xx.
  case status(Int)
  /// Its response was not HTTP.
  case badResponse(String)
  /// Its body was not a valid answer.
  case badAnswer(AuthProxyAnswerError)
  /// ``AuthProxyConfiguration/maxInFlight`` requests were already out.
  case busy

  /// What the refused member is told.
  static let answer = "authorization unavailable"

  var description: String {
    switch self {
    case .timedOut: "auth proxy timed out"
    case .unreachable(let why): "auth proxy unreachable: \(why)"
    case .status(let code): "auth proxy answered HTTP \(code)"
    case .badResponse(let why): "auth proxy response is not HTTP: \(why)"
    case .badAnswer(let error): "auth proxy \(error)"
    case .busy: "too many auth proxy requests out"
    }
  }
}
