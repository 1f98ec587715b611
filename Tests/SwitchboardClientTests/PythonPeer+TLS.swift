import Foundation
import SwitchboardTestSupport

// The peer for the `wss://` tests: a Python `websockets` server behind Python's `ssl`
// module, with certificates from the shared ``TestPKI``. None of it is our code, so a
// client that talks to it speaks real TLS and real WebSocket.

extension PythonPeer {
  /// Whether the `wss://` peers can run: python3 with `websockets`, and the `openssl` CLI.
  static let canServeWSS: Bool = hasWebsockets && TestPKI.hasOpenSSL

  /// A `websockets` echo server behind Python's `ssl` (TLS 1.2+) on 127.0.0.1, port 0.
  /// Prints `port N`, then `closed CODE REASON` when a connection ends.
  /// Arguments: certificate chain PEM, key PEM.
  static let wssEchoServerScript = """
    import asyncio, ssl, sys
    import websockets

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[1], sys.argv[2])

    async def handler(ws, *unused):
        try:
            async for message in ws:
                await ws.send(message)
        except websockets.ConnectionClosed:
            pass
        print("closed", ws.close_code, ws.close_reason, flush=True)

    async def main():
        async with websockets.serve(handler, "127.0.0.1", 0, ssl=context, max_size=None) as server:
            print("port", server.sockets[0].getsockname()[1], flush=True)
            await asyncio.Future()

    asyncio.run(main())
    """

  /// Starts the TLS echo server with `certificate` and `key` (file names in `pki`) and
  /// waits for its port.
  static func wssEchoServer(pki: TestPKI, certificate: String, key: String) async throws -> (
    ChildProcess, Int
  ) {
    let peer = try script(wssEchoServerScript, arguments: [pki.path(certificate), pki.path(key)])
    let port = try await peer.waitForLine { line -> Int? in
      line.hasPrefix("port ") ? Int(line.dropFirst(5)) : nil
    }
    return (peer, port)
  }
}
