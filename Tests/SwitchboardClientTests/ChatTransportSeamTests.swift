import Foundation
import SwitchboardClient
import SwitchboardServer
import SwitchboardTLS
import SwitchboardTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The public transport seam, driven by a transport this file writes against the public API
/// only (`SwitchboardClient` is imported without `@testable`): the line dialect over the
/// test's own blocking sockets, read on a thread of its own. A ``ChatClient`` configured with
/// it talks to a real server as a `tcp://` client does: it is handed the hello, a message
/// goes each way, it is asked to connect again when the server drops the connection, and
/// `close()` ends the connection it holds.
@Suite(.onTestThreads) struct ChatTransportSeamTests {
  @Test func aTransportWrittenAgainstThePublicAPICarriesTheChat() async throws {
    let server = try RestartableServer()
    defer { server.shutdown() }
    let transport = StandInLineTransport()
    var configuration = ChatClient.Configuration.forTesting
    configuration.transport = transport
    let alice = try ChatProbe(tcpURL(server), name: "alice", room: "lobby", configuration: configuration)
    let bob = try ChatProbe(tcpURL(server), name: "bob", room: "lobby")
    try await alice.waitConnected()
    try await bob.waitConnected()
    // A line client is in the room once the server answered its `/join` (connected means
    // only that the socket is up): before that, bob would not hear alice.
    try await waitJoined(bob, count: 1)

    let first = try #require(transport.requests.first)
    #expect(first.endpoint.scheme == .tcp)
    #expect(first.endpoint.port == server.tcpPort)
    #expect(first.hello == ["iam:alice", "/join lobby"])
    #expect(transport.sent.contains("iam:alice"), "the hello went over the stand-in's socket")

    try await alice.client.send("from alice")
    _ = try await bob.waitForMessage("from alice")
    try await bob.client.send("from bob")
    let heard = try await alice.waitForMessage("from bob")
    #expect(heard.author == "bob")

    // The server goes away and comes back: the client asks the transport again.
    let attempts = transport.requests.count
    try server.restart()
    try await alice.waitConnected(count: 2)
    try await bob.waitConnected(count: 2)
    try await waitJoined(bob, count: 2)
    #expect(transport.requests.count > attempts)
    #expect(transport.requests.last?.hello == ["iam:alice", "/join lobby"])
    try await alice.client.send("back again")
    _ = try await bob.waitForMessage("back again")

    await alice.stop()
    await bob.stop()
    try await eventually(timeout: ChatProbe.deadline, "the stand-in's connections closed") {
      transport.openConnections == 0
    }
    #expect(transport.closeCalls > 0, "the client closed its connection through the seam")
  }
}

/// Waits until `probe` has had `count` answers to the `/join lobby` of its hello.
private func waitJoined(_ probe: ChatProbe, count: Int) async throws {
  try await eventually(timeout: ChatProbe.deadline, "\(probe.client.name): joined \(count)x") {
    probe.events.filter { if case .notice(let line) = $0, line.contains(" in lobby") { true } else { false } }.count
      >= count
  }
}

/// What the seam hands a transport, and what it makes of a transport's errors.
@Suite(.onTestThreads) struct ChatTransportRequestTests {
  @Test func theDefaultTransportIsThePlatformsAndTLSSettingsNameTheHost() throws {
    #if canImport(Network)
      #expect(ChatClient.Configuration().transport is NetworkChatTransport)
    #else
      #expect(ChatClient.Configuration().transport is POSIXChatTransport)
    #endif
    let tls = try ChatEndpoint("tls://chat.example.com:8443")
    #expect(ChatTransportRequest(endpoint: tls, webSocketURL: "", hello: []).tlsConfiguration?.serverName == "chat.example.com")
    var named = ChatTransportRequest(endpoint: tls, webSocketURL: "", hello: [])
    named.tls = TLSConfiguration(serverName: "other.example.com", verify: false)
    #expect(named.tlsConfiguration?.serverName == "other.example.com")
    #expect(named.tlsConfiguration?.verify == false)
    let tcp = try ChatEndpoint("tcp://chat.example.com:8080")
    #expect(ChatTransportRequest(endpoint: tcp, webSocketURL: "", hello: []).tlsConfiguration == nil)
  }

  /// A transport's connect error is the client's `.error` event, with its words, and the
  /// client asks again by its reconnect policy.
  @Test func aTransportsConnectErrorIsReportedAndRetried() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let transport = RefusingFirst(StandInLineTransport())
    var configuration = ChatClient.Configuration.forTesting
    configuration.transport = transport
    let alice = try ChatProbe(tcpURL(server), name: "alice", room: "lobby", configuration: configuration)
    try await alice.waitConnected()
    let refusal = try await alice.waitFor("the stand-in's refusal") {
      if case .error(let error) = $0, error == .connectFailed { return true }
      return false
    }
    guard case .error(let error) = refusal else { return }
    #expect(error.description == "the stand-in refuses its first connect")
    await alice.stop()
  }
}

/// Refuses the first connect with ``ChatClientError/connectFailed(_:)``, then hands over.
final class RefusingFirst: ChatTransport {
  private let next: any ChatTransport
  private let attempts = Mutex(0)

  init(_ next: any ChatTransport) { self.next = next }

  func connect(_ request: ChatTransportRequest) async throws(ChatClientError) -> any ChatTransportConnection {
    let attempt = attempts.withLock {
      $0 += 1
      return $0
    }
    if attempt == 1 { throw .connectFailed("the stand-in refuses its first connect") }
    return try await next.connect(request)
  }
}

/// The line dialect (`tcp://`) over plain BSD sockets: no SwitchboardIO, no event loop.
final class StandInLineTransport: ChatTransport {
  private struct Record {
    var requests: [ChatTransportRequest] = []
    var sent: [String] = []
    var open = 0
    var closeCalls = 0
  }

  private let record = Mutex(Record())

  var requests: [ChatTransportRequest] { record.withLock { $0.requests } }
  var sent: [String] { record.withLock { $0.sent } }
  var openConnections: Int { record.withLock { $0.open } }
  var closeCalls: Int { record.withLock { $0.closeCalls } }

  func connect(_ request: ChatTransportRequest) async throws(ChatClientError) -> any ChatTransportConnection {
    record.withLock { $0.requests.append(request) }
    guard request.endpoint.scheme == .tcp else {
      throw .unsupportedScheme("the stand-in speaks tcp:// only, not \(request.endpoint.scheme)")
    }
    let fd = try Self.connectedSocket(host: request.endpoint.host, port: request.endpoint.port)
    let connection = StandInLineConnection(fd: fd, transport: self)
    record.withLock { $0.open += 1 }
    connection.startReading()
    for line in request.hello { try await connection.send(line) }
    return connection
  }

  fileprivate func noteSent(_ line: String) { record.withLock { $0.sent.append(line) } }
  fileprivate func noteClose() { record.withLock { $0.closeCalls += 1 } }
  fileprivate func noteClosed() { record.withLock { $0.open -= 1 } }

  /// A blocking TCP socket connected to `host` (an IPv4 address) and `port`.
  private static func connectedSocket(host: String, port: Int) throws(ChatClientError) -> Int32 {
    #if canImport(Glibc)
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
      let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { throw .connectFailed("socket: errno \(errno)") }
    #if canImport(Darwin)
      var on: Int32 = 1
      setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
    #endif
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port)).bigEndian
    guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
      close(fd)
      throw .connectFailed("not an IPv4 address: \(host)")
    }
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        socketConnect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard result == 0 else {
      let error = errno
      close(fd)
      throw .connectFailed("connect to \(host):\(port): errno \(error)")
    }
    return fd
  }
}

/// One connection of ``StandInLineTransport``: writes from any task, reads on its own thread.
final class StandInLineConnection: ChatTransportConnection {
  /// The socket, until the reading thread has closed it.
  private enum Socket {
    case open(Int32)
    case closed
  }

  let inputs: AsyncStream<ChatTransportInput>
  var headers: [ChatClient.Header] { [] }
  private let output: AsyncStream<ChatTransportInput>.Continuation
  private let socket: Mutex<Socket>
  private let transport: StandInLineTransport

  fileprivate init(fd: Int32, transport: StandInLineTransport) {
    socket = Mutex(.open(fd))
    self.transport = transport
    (inputs, output) = AsyncStream.makeStream(of: ChatTransportInput.self)
  }

  /// Reads until end of file; splits lines at `\n` (dropping a `\r` before it).
  fileprivate func startReading() {
    guard case .open(let fd) = socket.withLock({ $0 }) else { return }
    Thread.detachNewThread { [self] in
      var pending: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 4096)
      while true {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count <= 0 { break }
        pending += buffer[..<count]
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
          var line = pending[..<newline]
          if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
          output.yield(.text(String(decoding: line, as: UTF8.self)))
          pending.removeSubrange(...newline)
        }
      }
      socket.withLock { state in
        state = .closed
        socketClose(fd)
      }
      transport.noteClosed()
      output.yield(.closed(code: nil, reason: "end of stream"))
      output.finish()
    }
  }

  func send(_ text: String) async throws(ChatClientError) {
    let bytes = Array((text + "\n").utf8)
    let written = socket.withLock { state -> Bool in
      guard case .open(let fd) = state else { return false }
      #if canImport(Glibc)
        let flags = Int32(MSG_NOSIGNAL)
      #else
        let flags: Int32 = 0
      #endif
      return bytes.withUnsafeBytes { socketSend(fd, $0.baseAddress, $0.count, flags) } == bytes.count
    }
    guard written else { throw .closed("the stand-in's socket is closed") }
    transport.noteSent(text)
  }

  func probe() async {
    try? await send("/rooms")
  }

  func close() {
    transport.noteClose()
    // The reading thread sees end of file and closes the socket.
    socket.withLock { state in
      if case .open(let fd) = state { _ = shutdown(fd, Int32(SHUT_RDWR)) }
    }
  }
}

// The C library's `connect`, `send` and `close`, which the types above shadow with their own.
private func socketConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
  connect(fd, address, length)
}

private func socketSend(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int, _ flags: Int32) -> Int {
  send(fd, bytes, count, flags)
}

private func socketClose(_ fd: Int32) {
  _ = close(fd)
}
