import Foundation
import SwitchboardTestSupport

// The peer for the `wss://` tests: a Python `websockets` server behind Python's `ssl`
// module, with certificates from the shared ``TestPKI``. None of it is our code, so a
// client that talks to it speaks real TLS and real WebSocket.

extension PythonPeer {
  /// Whether the `wss://` peers can run: python3 with `websockets`, and the `openssl` CLI.
  static let canServeWSS: Bool = hasWebsockets && TestPKI.hasOpenSSL

  /// Starts ``echoServerScript`` behind TLS with `certificate` and `key` (file names in
  /// `pki`), compression offered as `websockets` does by default, and waits for its port.
  static func wssEchoServer(pki: TestPKI, certificate: String, key: String) async throws -> (
    ChildProcess, Int
  ) {
    let peer = try script(echoServerScript, arguments: ["deflate", pki.path(certificate), pki.path(key)])
    let port = try await peer.waitForLine { line -> Int? in
      line.hasPrefix("port ") ? Int(line.dropFirst(5)) : nil
    }
    return (peer, port)
  }
}
