import Foundation
import SwitchboardHTTP
import SwitchboardIO
import SwitchboardTestSupport

/// One raw `GET path` over a fresh socket, with `host` as its `Host` header (none when
/// `nil`), `origin` as its `Origin` (none when `nil`), and the WebSocket upgrade headers
/// when `upgrade`: the status and what came after the response head within 200 ms.
func rawRequestStatus(
  _ address: SocketAddress, path: String = "/", host: String?, origin: String? = nil, upgrade: Bool = false
) throws -> (Int, String) {
  let c = try LineClient(address)
  var request = "GET \(path) HTTP/1.1\r\n"
  if let host { request += "Host: \(host)\r\n" }
  if upgrade {
    request += "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    request += "Sec-WebSocket-Version: 13\r\n"
  }
  if let origin { request += "Origin: \(origin)\r\n" }
  try c.send(request + "\r\n")
  var parser = HTTPResponseParser()
  let deadline = ContinuousClock.now + .seconds(5)
  while ContinuousClock.now < deadline {
    c.fill(timeout: .milliseconds(100))
    parser.append(c.takeBuffered())
    if let head = try parser.next() {
      c.fill(timeout: .milliseconds(200))
      return (head.status, String(decoding: parser.takeRemainingBytes() + c.takeBuffered(), as: UTF8.self))
    }
  }
  throw TestFailure("no response to GET \(path) with Host \(host ?? "none")")
}
