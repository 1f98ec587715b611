import Foundation
import SwitchboardTestSupport

#if canImport(Glibc)
  import Glibc
#endif

// Peers for the `wss://` tests: a throwaway PKI made with the `openssl` CLI and a Python
// `websockets` server behind Python's `ssl` module. None of it is our code, so a client
// that talks to it speaks real TLS and real WebSocket.

/// A temporary directory with a test CA, a server certificate it signed for `localhost`
/// and `127.0.0.1`, and a self-signed certificate for the same names (P-256 keys).
/// ``remove()`` deletes it.
final class TLSPeerPKI: Sendable {
  let directory: URL

  init() throws {
    directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("switchboard-wss-\(getpid())-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    do {
      let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
      try openssl(
        ["req", "-x509"] + ec + [
          "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Switchboard WSS Test CA",
          "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
      try openssl(["req", "-new"] + ec + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"])
      try """
      subjectAltName=DNS:localhost,IP:127.0.0.1
      basicConstraints=CA:FALSE
      keyUsage=critical,digitalSignature
      extendedKeyUsage=serverAuth

      """.write(to: directory.appendingPathComponent("server.ext"), atomically: true, encoding: .utf8)
      try openssl([
        "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", "2",
        "-days", "2", "-extfile", "server.ext", "-out", "server.pem",
      ])
      try openssl(
        ["req", "-x509"] + ec + [
          "-keyout", "self.key", "-out", "self.pem", "-days", "2", "-subj", "/CN=localhost",
          "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ])
    } catch {
      remove()
      throw error
    }
  }

  func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
  var caFile: String { path("ca.pem") }

  /// The SHA-256 pin of a certificate's SubjectPublicKeyInfo, computed by the `openssl`
  /// CLI (independently of the code under test).
  func publicKeyPin(ofCertificate name: String) throws -> [UInt8] {
    try openssl(["x509", "-in", name, "-pubkey", "-noout", "-out", "\(name).pub"])
    try openssl(["pkey", "-pubin", "-in", "\(name).pub", "-outform", "DER", "-out", "\(name).der"])
    try openssl(["dgst", "-sha256", "-binary", "-out", "\(name).pin", "\(name).der"])
    return Array(try Data(contentsOf: directory.appendingPathComponent("\(name).pin")))
  }

  func remove() {
    try? FileManager.default.removeItem(at: directory)
  }

  /// Runs `openssl arguments…` in the directory; throws with its stderr when it fails.
  private func openssl(_ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["openssl"] + arguments
    process.currentDirectoryURL = directory
    let errors = Pipe()
    process.standardOutput = FileHandle.nullDevice
    process.standardError = errors
    process.standardInput = FileHandle.nullDevice
    try runSerialized(process)
    let message = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw TestFailure(
        "openssl \(arguments.joined(separator: " ")) failed: \(String(decoding: message, as: UTF8.self))")
    }
  }

  /// Whether the `openssl` CLI runs.
  static let hasOpenSSL: Bool = {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["openssl", "version"]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    do {
      try runSerialized(process)
    } catch {
      return false
    }
    process.waitUntilExit()
    return process.terminationStatus == 0
  }()
}

extension PythonPeer {
  /// Whether the `wss://` peers can run: python3 with `websockets`, and the `openssl` CLI.
  static let canServeWSS: Bool = hasWebsockets && TLSPeerPKI.hasOpenSSL

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
  static func wssEchoServer(pki: TLSPeerPKI, certificate: String, key: String) async throws -> (
    PythonPeer, Int
  ) {
    let peer = try PythonPeer(
      script: wssEchoServerScript, arguments: [pki.path(certificate), pki.path(key)])
    let port = try await peer.waitForLine { line -> Int? in
      line.hasPrefix("port ") ? Int(line.dropFirst(5)) : nil
    }
    return (peer, port)
  }
}
