import Foundation
import SwitchboardAuth
import SwitchboardHTTP
import SwitchboardIO
import SwitchboardTestSupport

/// One answer of the admin console.
struct AdminAnswer {
  var status: Int
  var headers: HTTPHeaders
  var body: String

  /// The body as a JSON object.
  var json: [String: JSONValue] { (try? JSONValue(parsing: Array(body.utf8)))?.objectValue ?? [:] }
  /// The error code of a JSON error.
  var errorCode: String? { json["error"]?.objectValue?["code"]?.stringValue }
}

/// A browser-like client of the admin console over raw sockets: one request per
/// connection (`Connection: close`), the session cookie and CSRF token kept after a login.
final class AdminTestClient {
  let address: SocketAddress
  var cookie: String?
  var csrf: String?

  init(port: Int) {
    address = try! SocketAddress(host: "127.0.0.1", port: port)
  }

  /// Sends one request and reads the whole answer (the server closes after it).
  func request(
    _ method: String, _ path: String, body: String? = nil, contentType: String = "application/json",
    headers: [(String, String)] = [], csrf sendCSRF: Bool = true
  ) throws -> AdminAnswer {
    let c = try LineClient(address)
    var text = "\(method) \(path) HTTP/1.1\r\nHost: \(address)\r\nConnection: close\r\n"
    if let cookie { text += "Cookie: other=1; switchboard_admin=\(cookie)\r\n" }
    if sendCSRF, let csrf { text += "X-CSRF-Token: \(csrf)\r\n" }
    for (name, value) in headers { text += "\(name): \(value)\r\n" }
    if let body { text += "Content-Type: \(contentType)\r\nContent-Length: \(body.utf8.count)\r\n" }
    try c.send(text + "\r\n" + (body ?? ""))
    let deadline = ContinuousClock.now + .seconds(10)
    while !c.closedByPeer, ContinuousClock.now < deadline { _ = c.fill(timeout: .milliseconds(100)) }
    var parser = HTTPResponseParser()
    parser.append(c.takeBuffered())
    guard let head = try parser.next() else { throw TestFailure("no answer to \(method) \(path)") }
    return AdminAnswer(
      status: head.status, headers: head.headers,
      body: String(decoding: parser.takeRemainingBytes(), as: UTF8.self))
  }

  /// Logs in with `password` (JSON); keeps the cookie and token when it worked.
  @discardableResult
  func login(_ password: String) throws -> AdminAnswer {
    let answer = try request("POST", "/admin/login", body: #"{"password":"\#(password)"}"#)
    if answer.status == 200 {
      cookie = Self.sessionCookie(answer.headers["Set-Cookie"])
      csrf = answer.json["csrf"]?.stringValue
    }
    return answer
  }

  /// The session id a `Set-Cookie` sets.
  static func sessionCookie(_ header: String?) -> String? {
    guard let header, header.hasPrefix("switchboard_admin=") else { return nil }
    return header.dropFirst("switchboard_admin=".count).split(separator: ";").first.map(String.init)
  }

  /// Opens `/admin/events` (with `?room=`): the stream.
  func events(room: String? = nil) throws -> AdminEventReader {
    let c = try LineClient(address)
    let path = "/admin/events" + (room.map { "?room=\($0)" } ?? "")
    var text = "GET \(path) HTTP/1.1\r\nHost: \(address)\r\nAccept: text/event-stream\r\n"
    if let cookie { text += "Cookie: switchboard_admin=\(cookie)\r\n" }
    try c.send(text + "\r\n")
    return AdminEventReader(c)
  }
}

/// Reads server-sent events from a stream's connection.
final class AdminEventReader {
  let client: LineClient
  private var pending: [UInt8] = []
  private(set) var head: HTTPResponseHead?

  init(_ client: LineClient) { self.client = client }

  /// One event: its name and its data parsed as JSON.
  struct Event {
    var name: String
    var data: String
    var json: [String: JSONValue] { (try? JSONValue(parsing: Array(data.utf8)))?.objectValue ?? [:] }
  }

  /// The next event, or throws after `timeout`.
  func next(timeout: Duration = .seconds(10)) throws -> Event {
    let deadline = ContinuousClock.now + timeout
    while true {
      pending += client.takeBuffered()
      if head == nil {
        var parser = HTTPResponseParser()
        parser.append(pending)
        if let parsed = try parser.next() {
          head = parsed
          pending = parser.takeRemainingBytes()
        }
      }
      if head != nil, let end = Self.find(Array("\n\n".utf8), in: pending) {
        let block = String(decoding: pending[..<end], as: UTF8.self)
        pending.removeFirst(end + 2)
        var event = Event(name: "message", data: "")
        for line in block.split(separator: "\n") {
          if line.hasPrefix("event: ") { event.name = String(line.dropFirst(7)) }
          if line.hasPrefix("data: ") { event.data += String(line.dropFirst(6)) }
        }
        return event
      }
      guard ContinuousClock.now < deadline, !client.closedByPeer || !client.bufferedBytes.isEmpty else {
        throw TestFailure("no event within \(timeout) (closed: \(client.closedByPeer))")
      }
      _ = client.fill(timeout: .milliseconds(100))
    }
  }

  /// The next event named `name`, skipping others.
  func next(_ name: String, timeout: Duration = .seconds(10)) throws -> Event {
    let deadline = ContinuousClock.now + timeout
    while true {
      let event = try next(timeout: max(.milliseconds(1), deadline - ContinuousClock.now))
      if event.name == name { return event }
    }
  }

  /// Snapshots until `condition` holds for one (which is returned), or throws after `timeout`.
  func snapshot(
    within timeout: Duration = .seconds(10), _ what: String, where condition: ([String: JSONValue]) -> Bool
  ) throws -> [String: JSONValue] {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
      guard let event = try? next("snapshot", timeout: deadline - ContinuousClock.now) else { break }
      if condition(event.json) { return event.json }
    }
    throw TestFailure("no snapshot where \(what) within \(timeout)")
  }

  private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
    guard haystack.count >= needle.count else { return nil }
    for i in 0...(haystack.count - needle.count) where haystack[i..<(i + needle.count)].elementsEqual(needle)
    {
      return i
    }
    return nil
  }
}

extension [String: JSONValue] {
  /// The snapshot's row for `room` in `rooms`.
  func roomRow(_ room: String) -> [String: JSONValue]? {
    self["rooms"]?.arrayValue?.compactMap(\.objectValue).first { $0["room"]?.stringValue == room }
  }
  /// The watched room's members.
  var watchedMembers: [[String: JSONValue]] {
    self["room"]?.objectValue?["members"]?.arrayValue?.compactMap(\.objectValue) ?? []
  }
  /// The watched room's messages in this snapshot.
  var watchedMessages: [[String: JSONValue]] {
    self["room"]?.objectValue?["messages"]?.arrayValue?.compactMap(\.objectValue) ?? []
  }
}
