import Foundation
import SwitchboardTestSupport

/// Python programs run as test peers (``ChildProcess``es, killed by PID when the test
/// ends), and whether this machine can run them.
enum PythonPeer {
  /// Starts `python3 -u -c script arguments…`.
  static func script(_ script: String, arguments: [String] = []) throws -> ChildProcess {
    try ChildProcess(command: ["python3", "-u", "-c", script] + arguments)
  }

  /// Starts `python3 -u -m module arguments…`.
  static func module(_ module: String, arguments: [String] = []) throws -> ChildProcess {
    try ChildProcess(command: ["python3", "-u", "-m", module] + arguments)
  }

  /// Whether `python3 -c 'import websockets'` works (the tests that need it skip
  /// otherwise; scripts/install-test-peers.sh installs it).
  static let hasWebsockets: Bool = commandSucceeds(["python3", "-c", "import websockets"])

  /// Whether `python3` runs at all.
  static let hasPython: Bool = commandSucceeds(["python3", "-c", "pass"])
}

extension PythonPeer {
  /// A `websockets` echo server on 127.0.0.1, port 0; prints its port, then for every
  /// connection `closed CODE REASON` when it ends. Paths change what it does first:
  /// `/close` closes with 4001 "bye"; `/ping` pings with "hello"; `/info` sends the
  /// chosen subprotocol and the `X-Test` request header as two text messages. Then it
  /// echoes every message.
  /// Arguments: `deflate` or `off`; a certificate chain PEM and its key PEM for TLS
  /// (Python's `ssl`, TLS 1.2+), or `-` and `-`; then the subprotocols it speaks.
  static let echoServerScript = """
    import asyncio, ssl, sys
    import websockets

    compression = "deflate" if sys.argv[1] == "deflate" else None
    context = None
    if sys.argv[2] != "-":
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[2], sys.argv[3])
    subprotocols = sys.argv[4:] or None

    def request_info(ws):
        request = getattr(ws, "request", None)
        if request is not None:
            return request.path, request.headers
        return ws.path, ws.request_headers

    async def handler(ws, *unused):
        path, headers = request_info(ws)
        try:
            if path.startswith("/close"):
                await ws.close(4001, "bye")
            else:
                if path.startswith("/ping"):
                    await ws.ping(b"hello")
                if path.startswith("/info"):
                    await ws.send(ws.subprotocol or "-")
                    await ws.send(headers.get("X-Test", "-"))
                async for message in ws:
                    await ws.send(message)
        except websockets.ConnectionClosed:
            pass
        print("closed", ws.close_code, ws.close_reason, flush=True)

    async def main():
        async with websockets.serve(handler, "127.0.0.1", 0, max_size=None, compression=compression,
                                    subprotocols=subprotocols, ssl=context) as server:
            print("port", server.sockets[0].getsockname()[1], flush=True)
            await asyncio.Future()

    asyncio.run(main())
    """

  /// Starts the echo server and waits for its port.
  static func echoServer(compression: Bool = false, subprotocols: [String] = []) async throws -> (
    ChildProcess, Int
  ) {
    let peer = try script(
      echoServerScript, arguments: [compression ? "deflate" : "off", "-", "-"] + subprotocols)
    let port = try await peer.waitForLine { line -> Int? in
      line.hasPrefix("port ") ? Int(line.dropFirst(5)) : nil
    }
    return (peer, port)
  }

  /// Python's `http.server` on 127.0.0.1, port 0, serving an empty directory (so any
  /// path is a 404).
  static func httpServer(directory: String) async throws -> (ChildProcess, Int) {
    let peer = try module("http.server", arguments: ["0", "--bind", "127.0.0.1", "--directory", directory])
    // "Serving HTTP on 127.0.0.1 port 40123 (http://127.0.0.1:40123/) ..."
    let port = try await peer.waitForLine { line -> Int? in
      guard let range = line.range(of: " port ") else { return nil }
      return Int(line[range.upperBound...].prefix { $0.isNumber })
    }
    return (peer, port)
  }
}
