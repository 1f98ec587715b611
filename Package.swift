// swift-tools-version: 6.1
import PackageDescription

// The dependency direction is the architecture: codecs (HTTP, WebSocket) do no I/O,
// Chat uses the codecs, Server and Client add the event loops, the CLI sits on top.
let package = Package(
  name: "Switchboard",
  platforms: [.macOS(.v14), .iOS(.v17)],
  products: [
    .executable(name: "switchboard", targets: ["switchboard"]),
    .library(name: "SwitchboardIO", targets: ["SwitchboardIO"]),
    .library(name: "SwitchboardHTTP", targets: ["SwitchboardHTTP"]),
    .library(name: "SwitchboardWebSocket", targets: ["SwitchboardWebSocket"]),
    .library(name: "SwitchboardChat", targets: ["SwitchboardChat"]),
    .library(name: "SwitchboardServer", targets: ["SwitchboardServer"]),
    .library(name: "SwitchboardStore", targets: ["SwitchboardStore"]),
    .library(name: "SwitchboardClient", targets: ["SwitchboardClient"]),
  ],
  targets: [
    .target(name: "CSwitchboardShims"),
    .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
    .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
    .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
    .target(name: "SwitchboardIO", dependencies: ["CSwitchboardShims"]),
    .target(name: "SwitchboardHTTP"),
    .target(name: "SwitchboardTLS", dependencies: ["SwitchboardIO", "COpenSSL"]),
    .target(name: "SwitchboardWebSocket", dependencies: ["SwitchboardHTTP", "COpenSSL", "CZlib"]),
    .target(name: "SwitchboardChat"),
    .target(name: "SwitchboardStore", dependencies: ["SwitchboardChat", "CSQLite"]),
    .target(name: "SwitchboardBench", dependencies: ["SwitchboardIO", "SwitchboardHTTP", "SwitchboardWebSocket"]),
    .target(
      name: "SwitchboardServer",
      dependencies: [
        "SwitchboardIO", "SwitchboardHTTP", "SwitchboardWebSocket", "SwitchboardChat", "SwitchboardStore",
      ]),
    .target(
      name: "SwitchboardClient",
      dependencies: [
        "SwitchboardIO", "SwitchboardHTTP", "SwitchboardWebSocket", "SwitchboardTLS", "SwitchboardChat", "COpenSSL",
      ]),
    .executableTarget(
      name: "switchboard",
      dependencies: [
        "SwitchboardServer", "SwitchboardClient", "SwitchboardBench", "SwitchboardChat", "SwitchboardIO",
        "SwitchboardStore",
      ]),
    // The Autobahn|Testsuite client testee (scripts/autobahn-client.sh).
    .executableTarget(name: "autobahn-client", dependencies: ["SwitchboardClient"]),
    // What every suite shares: the test threads, deadline waits, child processes, a test PKI,
    // seeded randomness, loop hops and buffer checks (docs/TESTING.md).
    .target(name: "SwitchboardTestSupport", dependencies: ["SwitchboardIO"], path: "Tests/SwitchboardTestSupport"),
    .testTarget(name: "SwitchboardIOTests", dependencies: ["SwitchboardIO", "SwitchboardTestSupport"]),
    .testTarget(name: "SwitchboardTestSupportTests", dependencies: ["SwitchboardTestSupport"]),
    .testTarget(name: "SwitchboardHTTPTests", dependencies: ["SwitchboardHTTP", "SwitchboardTestSupport"]),
    .testTarget(
      name: "SwitchboardWebSocketTests", dependencies: ["SwitchboardWebSocket", "SwitchboardHTTP", "SwitchboardTestSupport"]),
    .testTarget(name: "SwitchboardChatTests", dependencies: ["SwitchboardChat", "SwitchboardTestSupport"]),
    .testTarget(name: "SwitchboardStoreTests", dependencies: ["SwitchboardStore", "SwitchboardChat", "SwitchboardTestSupport"]),
    .testTarget(name: "SwitchboardTLSTests", dependencies: ["SwitchboardTLS", "SwitchboardIO", "SwitchboardTestSupport"]),
    .testTarget(
      name: "SwitchboardClientTests",
      dependencies: [
        "SwitchboardClient", "SwitchboardIO", "SwitchboardWebSocket", "SwitchboardServer", "SwitchboardChat",
        "SwitchboardTestSupport",
      ]),
    .testTarget(
      name: "SwitchboardServerTests",
      dependencies: [
        "SwitchboardServer", "SwitchboardIO", "SwitchboardChat", "SwitchboardWebSocket", "SwitchboardHTTP",
        "SwitchboardTestSupport",
      ]),
  ],
  swiftLanguageModes: [.v6]
)
