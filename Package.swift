// swift-tools-version: 6.2
import PackageDescription

// The dependency direction is the architecture: the codecs (HTTP, WebSocket, DNS, RESP), Wire
// (the chat wire both sides share: messages, room names, the line and JSON dialects, client
// frames; it borrows HTTP's text helpers) and Chat (the hub: rooms, members, the room-broker
// seam, on top of Wire) import nothing that does I/O; Store keeps the local broker's history
// (and starts its writer thread with IO's thread wrapper); Server brings the event loops,
// codecs and the hub together (it links no store: the CLI, on top, chooses the broker and its
// store); Client brings the event loops, codecs and Wire together, never the hub, the store,
// Redis or OpenSSL.
// Libraries Apple's SDKs lack (OpenSSL) are dependencies on Linux only; on Apple platforms the
// same jobs go to the system or to portable Swift, and a feature with no Apple implementation
// yet refuses at run time, naming the platform (README, "On a Mac"). SWITCHBOARD_WITHOUT_OPENSSL=1
// builds on Linux without them too, as an Apple platform would, so that the fallbacks compile
// and are tested here (scripts/test runs that build).
let withoutOpenSSL = Context.environment["SWITCHBOARD_WITHOUT_OPENSSL"] == "1"
let openSSL: [Target.Dependency] =
  withoutOpenSSL ? [] : [.target(name: "COpenSSL", condition: .when(platforms: [.linux]))]

let package = Package(
  name: "Switchboard",
  // Synchronization's Mutex and Atomic, which every loop and hub uses, need macOS 15 / iOS 18.
  platforms: [.macOS(.v15), .iOS(.v18)],
  products: [
    .executable(name: "switchboard", targets: ["switchboard"]),
    .library(name: "SwitchboardIO", targets: ["SwitchboardIO"]),
    .library(name: "SwitchboardHTTP", targets: ["SwitchboardHTTP"]),
    .library(name: "SwitchboardWebSocket", targets: ["SwitchboardWebSocket"]),
    .library(name: "SwitchboardDNS", targets: ["SwitchboardDNS"]),
    .library(name: "SwitchboardDiscovery", targets: ["SwitchboardDiscovery"]),
    .library(name: "SwitchboardWire", targets: ["SwitchboardWire"]),
    .library(name: "SwitchboardChat", targets: ["SwitchboardChat"]),
    .library(name: "SwitchboardServer", targets: ["SwitchboardServer"]),
    .library(name: "SwitchboardStore", targets: ["SwitchboardStore"]),
    .library(name: "SwitchboardClient", targets: ["SwitchboardClient"]),
    // The client's public API carries TLSConfiguration and TLSError: an app can name them.
    .library(name: "SwitchboardTLS", targets: ["SwitchboardTLS"]),
    .library(name: "SwitchboardLog", targets: ["SwitchboardLog"]),
    .library(name: "SwitchboardRESP", targets: ["SwitchboardRESP"]),
    .library(name: "SwitchboardRedis", targets: ["SwitchboardRedis"]),
    .library(name: "SwitchboardAuth", targets: ["SwitchboardAuth"]),
  ],
  targets: [
    .target(name: "CSwitchboardShims"),
    // The DNS-SD calls of the system discovery backend, bound at run time (dlopen), so that a
    // machine without avahi's compatibility library still builds (docs/DISCOVERY.md).
    .target(name: "CDNSSD"),
    .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
    .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
    .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
    .target(name: "SwitchboardIO", dependencies: ["CSwitchboardShims"]),
    .target(name: "SwitchboardHTTP"),
    // Leveled logs with metadata (swift-log's shape); no dependencies, so any module may log
    // (Store, Server, Client and the CLI do; the codecs, the wire and the hub never log).
    .target(name: "SwitchboardLog"),
    // SHA-1 in portable Swift (pure): the WebSocket handshake and Redis script ids need it on
    // every platform, so it is no crypto library's job.
    .target(name: "SwitchboardCrypto"),
    .target(name: "SwitchboardTLS", dependencies: ["SwitchboardIO"] + openSSL),
    .target(name: "SwitchboardWebSocket", dependencies: ["SwitchboardHTTP", "CZlib", "SwitchboardCrypto"]),
    // The chat wire, what the client and the server share; it uses the HTTP module's text
    // helpers (trimming). Both stay free of I/O.
    .target(name: "SwitchboardWire", dependencies: ["SwitchboardHTTP"]),
    // The hub (rooms, members, brokers' seam) on top of the wire; free of I/O too.
    .target(name: "SwitchboardChat", dependencies: ["SwitchboardWire"]),
    // Signed tokens (JWS/JWT): a pure decoder with limits; keys read in portable Swift, signatures
    // through OpenSSL on Linux, CryptoKit and Security on Apple platforms (docs/SECURITY.md); IO only
    // for the platform's name in refusals. It takes the room-name rule and JSON string quoting from
    // the wire, so the rules stay one.
    .target(name: "SwitchboardAuth", dependencies: ["SwitchboardWire", "SwitchboardIO", "SwitchboardCrypto"] + openSSL),
    // DNS/mDNS message codec (pure): the base of discovery (docs/DISCOVERY.md).
    .target(name: "SwitchboardDNS"),
    // mDNS responder (a pure state machine) and its multicast socket shell (docs/DISCOVERY.md).
    .target(
      name: "SwitchboardDiscovery", dependencies: ["SwitchboardDNS", "SwitchboardIO", "SwitchboardLog", "CDNSSD"]),
    // RESP2/RESP3 codec (pure, fuzzed) and the Redis client on our loops (docs/SCALING.md).
    .target(name: "SwitchboardRESP"),
    .target(
      name: "SwitchboardRedis",
      dependencies: [
        "SwitchboardRESP", "SwitchboardIO", "SwitchboardTLS", "SwitchboardLog", "SwitchboardHTTP", "SwitchboardChat",
        "SwitchboardWire", "SwitchboardCrypto",
      ]),
    .target(
      name: "SwitchboardStore",
      dependencies: ["SwitchboardChat", "SwitchboardWire", "SwitchboardIO", "SwitchboardLog", "CSQLite"]),
    .target(
      name: "SwitchboardBench", dependencies: ["SwitchboardIO", "SwitchboardHTTP", "SwitchboardWebSocket", "SwitchboardTLS"]),
    .target(
      name: "SwitchboardServer",
      dependencies: [
        "SwitchboardIO", "SwitchboardHTTP", "SwitchboardWebSocket", "SwitchboardChat", "SwitchboardLog",
        "SwitchboardAuth", "SwitchboardTLS", "SwitchboardWire",
        "SwitchboardCrypto",
      ]),
    .target(
      name: "SwitchboardClient",
      dependencies: [
        "SwitchboardIO", "SwitchboardHTTP", "SwitchboardWebSocket", "SwitchboardTLS", "SwitchboardWire",
        "SwitchboardLog", "SwitchboardDiscovery", "SwitchboardDNS",
        "SwitchboardCrypto",
      ]),
    .executableTarget(
      name: "switchboard",
      dependencies: [
        "SwitchboardServer", "SwitchboardClient", "SwitchboardBench", "SwitchboardChat", "SwitchboardIO",
        "SwitchboardStore", "SwitchboardLog", "SwitchboardDiscovery", "SwitchboardDNS", "SwitchboardAuth",
        "SwitchboardRedis", "SwitchboardWire", "SwitchboardTLS",
      ],
      plugins: ["BuildCommitPlugin"]),
    // Writes the git commit being built into the switchboard binary (for --version).
    .plugin(name: "BuildCommitPlugin", capability: .buildTool(), dependencies: ["build-commit"]),
    .executableTarget(name: "build-commit"),
    // libFuzzer targets, one per decoder: `fuzz-NAME` is a fuzzer only with -DFUZZ_NAME, else a
    // program replaying inputs; scripts/fuzz builds and runs them (docs/TESTING.md, "Fuzzing").
    .target(name: "SwitchboardFuzzSupport"),
    .executableTarget(name: "fuzz-dns", dependencies: ["SwitchboardDNS", "SwitchboardFuzzSupport"]),
    .executableTarget(name: "fuzz-resp", dependencies: ["SwitchboardRESP", "SwitchboardFuzzSupport"]),
    .executableTarget(
      name: "fuzz-broker-payload", dependencies: ["SwitchboardRedis", "SwitchboardWire", "SwitchboardFuzzSupport"]),
    .executableTarget(name: "fuzz-http-request", dependencies: ["SwitchboardHTTP", "SwitchboardFuzzSupport"]),
    .executableTarget(name: "fuzz-http-response", dependencies: ["SwitchboardHTTP", "SwitchboardFuzzSupport"]),
    .executableTarget(name: "fuzz-sse", dependencies: ["SwitchboardHTTP", "SwitchboardFuzzSupport"]),
    .executableTarget(name: "fuzz-ws-frame", dependencies: ["SwitchboardWebSocket", "SwitchboardFuzzSupport"]),
    .executableTarget(
      name: "fuzz-ws-handshake", dependencies: ["SwitchboardWebSocket", "SwitchboardHTTP", "SwitchboardFuzzSupport"]),
    .executableTarget(name: "fuzz-deflate", dependencies: ["SwitchboardWebSocket", "SwitchboardFuzzSupport"]),
    .executableTarget(name: "fuzz-line", dependencies: ["SwitchboardWire", "SwitchboardFuzzSupport"]),
    .executableTarget(name: "fuzz-json", dependencies: ["SwitchboardWire", "SwitchboardFuzzSupport"]),
    .executableTarget(
      name: "fuzz-url",
      dependencies: ["SwitchboardHTTP", "SwitchboardWire", "SwitchboardClient", "SwitchboardFuzzSupport"]),
    .executableTarget(name: "fuzz-token", dependencies: ["SwitchboardAuth", "SwitchboardFuzzSupport"]),
    .executableTarget(name: "fuzz-auth-proxy", dependencies: ["SwitchboardAuth", "SwitchboardFuzzSupport"]),
    .executableTarget(name: "fuzz-admin", dependencies: ["SwitchboardHTTP", "SwitchboardFuzzSupport"]),
    .executableTarget(name: "fuzz-node-sample", dependencies: ["SwitchboardServer", "SwitchboardFuzzSupport"]),
    // The Autobahn|Testsuite client testee (scripts/autobahn/client.sh).
    .executableTarget(name: "autobahn-client", dependencies: ["SwitchboardClient"]),
    // What every suite shares: the test threads, deadline waits, child processes, a test PKI,
    // seeded randomness, loop hops and buffer checks (docs/TESTING.md).
    .target(name: "SwitchboardTestSupport", dependencies: ["SwitchboardIO"], path: "Tests/SwitchboardTestSupport"),
    .testTarget(name: "SwitchboardIOTests", dependencies: ["SwitchboardIO", "SwitchboardTestSupport"]),
    .testTarget(name: "SwitchboardTestSupportTests", dependencies: ["SwitchboardTestSupport", "SwitchboardIO"]),
    .testTarget(name: "SwitchboardHTTPTests", dependencies: ["SwitchboardHTTP", "SwitchboardTestSupport"]),
    .testTarget(
      name: "SwitchboardWebSocketTests", dependencies: ["SwitchboardWebSocket", "SwitchboardHTTP", "SwitchboardTestSupport"]),
    .testTarget(name: "SwitchboardWireTests", dependencies: ["SwitchboardWire", "SwitchboardTestSupport"]),
    .testTarget(
      name: "SwitchboardChatTests", dependencies: ["SwitchboardChat", "SwitchboardWire", "SwitchboardTestSupport"]),
    .testTarget(
      name: "SwitchboardDNSTests", dependencies: ["SwitchboardDNS", "SwitchboardTestSupport"], exclude: ["Fixtures"]),
    .testTarget(
      name: "SwitchboardDiscoveryTests",
      dependencies: ["SwitchboardDiscovery", "SwitchboardDNS", "SwitchboardIO", "SwitchboardTestSupport"]),
    .testTarget(
      name: "SwitchboardStoreTests",
      dependencies: ["SwitchboardStore", "SwitchboardChat", "SwitchboardWire", "SwitchboardTestSupport"]),
    .testTarget(name: "SwitchboardTLSTests", dependencies: ["SwitchboardTLS", "SwitchboardIO", "SwitchboardTestSupport"]),
    .testTarget(
      name: "SwitchboardClientTests",
      dependencies: [
        "SwitchboardClient", "SwitchboardIO", "SwitchboardWebSocket", "SwitchboardServer", "SwitchboardChat",
        "SwitchboardWire", "SwitchboardDiscovery", "SwitchboardDNS", "SwitchboardStore", "SwitchboardTestSupport",
        "SwitchboardTLS",
        "SwitchboardAuth",
      ]),
    .testTarget(
      name: "SwitchboardServerTests",
      dependencies: [
        "SwitchboardServer", "SwitchboardIO", "SwitchboardChat", "SwitchboardWebSocket", "SwitchboardHTTP",
        "SwitchboardStore", "SwitchboardTestSupport", "SwitchboardAuth", "SwitchboardWire", "SwitchboardTLS",
      ]),
    // SHA-1 against OpenSSL's where OpenSSL is linked.
    .testTarget(name: "SwitchboardCryptoTests", dependencies: ["SwitchboardCrypto", "SwitchboardTestSupport"] + openSSL),
    .testTarget(name: "SwitchboardLogTests", dependencies: ["SwitchboardLog", "SwitchboardTestSupport"]),
    .testTarget(name: "SwitchboardRESPTests", dependencies: ["SwitchboardRESP", "SwitchboardTestSupport"]),
    .testTarget(
      name: "SwitchboardRedisTests",
      dependencies: [
        "SwitchboardRedis", "SwitchboardRESP", "SwitchboardIO", "SwitchboardTLS", "SwitchboardChat", "SwitchboardServer",
        "SwitchboardTestSupport", "SwitchboardClient", "SwitchboardDiscovery", "SwitchboardDNS", "SwitchboardLog",
        "SwitchboardWire",
      ]),
    .testTarget(name: "SwitchboardAuthTests", dependencies: ["SwitchboardAuth", "SwitchboardIO", "SwitchboardTestSupport"]),
  ],
  swiftLanguageModes: [.v6]
)

