// Autobahn|Testsuite client testee (`wstest -m fuzzingserver`), on WebSocketClient.
//
// The `main.swift` of the executable target `autobahn-client` (depending on
// SwitchboardClient). Protocol, from docs/TESTING.md ("Conformance") and
// scripts/autobahn/run-client-suite.sh (URL = $ABT_URL, agent = $ABT_AGENT):
//   1. URL/getCaseCount -> one text message, N
//   2. for n in 1...N: URL/runCase?case=n&agent=AGENT, echo every message (text as text,
//      binary as binary) until the server closes
//   3. URL/updateReports?agent=AGENT
// Usage: autobahn-client [URL] [AGENT]; scripts/autobahn/client.sh runs it.
import SwitchboardClient

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

func environment(_ name: String) -> String? {
  getenv(name).map { String(cString: $0) }
}

func log(_ line: String) {
  var text = line + "\n"
  text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}

let arguments = CommandLine.arguments
let baseURL = arguments.count > 1 ? arguments[1] : environment("ABT_URL") ?? "ws://127.0.0.1:9010"
let agent = arguments.count > 2 ? arguments[2] : environment("ABT_AGENT") ?? "switchboard-client"
let configuration = WebSocketClient.Configuration(
  compression: environment("ABT_COMPRESSION") != "0", connectTimeout: .seconds(10), closeTimeout: .seconds(5),
  maxMessageSize: 64 << 20)

/// Connects and echoes every data message until the connection ends.
func echo(_ url: String) async throws(WebSocketClientError) {
  let client = try await WebSocketClient.connect(to: url, configuration: configuration)
  for await event in client.events {
    switch event {
    case .text(let text): try? await client.send(text: text)
    case .binary(let bytes): try? await client.send(binary: bytes)
    case .ping, .pong, .closed: break
    }
  }
  await client.close()
}

/// Connects and returns the first text message.
func firstText(_ url: String) async throws(WebSocketClientError) -> String? {
  let client = try await WebSocketClient.connect(to: url, configuration: configuration)
  var first: String?
  for await event in client.events {
    if case .text(let text) = event, first == nil { first = text }
  }
  await client.close()
  return first
}

do {
  guard let text = try await firstText("\(baseURL)/getCaseCount"), let count = Int(text) else {
    log("autobahn-client: no case count from \(baseURL)")
    exit(1)
  }
  log("autobahn-client: \(count) cases, agent \(agent)")
  for n in 1...max(count, 1) where count > 0 {
    do {
      try await echo("\(baseURL)/runCase?case=\(n)&agent=\(agent)")
    } catch {
      log("autobahn-client: case \(n): \(error)")
    }
  }
  try await echo("\(baseURL)/updateReports?agent=\(agent)")
  log("autobahn-client: done")
} catch {
  log("autobahn-client: \(error)")
  exit(1)
}
