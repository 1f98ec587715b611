import SwitchboardTestSupport
import SwitchboardIO
import Testing

@testable import SwitchboardServer

/// The server's lifecycle: the transitions on their own, then a real server.
@Suite(.onTestThreads) struct ChatServerLifecycleTests {
  @Test func startsOnceThenShutsDownOnce() {
    var lifecycle = ChatServerLifecycle.initial
    #expect(lifecycle.start() == .bind)
    #expect(lifecycle.started() == .none)
    #expect(lifecycle == .running)
    #expect(lifecycle.shutdown(reason: "bye") == .shutDown)
    #expect(lifecycle.shutdown(reason: "again") == .none)
    lifecycle.stopped()
    #expect(lifecycle == .stopped)
    #expect(lifecycle.shutdown(reason: "after") == .none)
  }

  @Test func aSecondStartIsMisuse() {
    var lifecycle = ChatServerLifecycle.initial
    _ = lifecycle.start()
    #expect(lifecycle.start() == .misuse("ChatServer.start() called twice: a server starts once"))
    _ = lifecycle.started()
    #expect(lifecycle.start() == .misuse("ChatServer.start() called twice: a server starts once"))
    #expect(lifecycle == .running)
  }

  @Test func startAfterShutdownIsMisuse() {
    let message = "ChatServer.start() called after shutdown(): make a new ChatServer to serve again"
    var lifecycle = ChatServerLifecycle.initial
    #expect(lifecycle.shutdown(reason: "early") == .shutDown)
    #expect(lifecycle.start() == .misuse(message))
    lifecycle.stopped()
    #expect(lifecycle.start() == .misuse(message))
    #expect(lifecycle == .stopped)
  }

  @Test func aShutdownDuringStartIsCarriedOutByTheStart() {
    var lifecycle = ChatServerLifecycle.initial
    _ = lifecycle.start()
    #expect(lifecycle.shutdown(reason: "signal") == .deferToStart)
    #expect(lifecycle.shutdown(reason: "second signal") == .none)
    #expect(lifecycle.started() == .shutDown(reason: "signal"))
    #expect(lifecycle == .shuttingDown)
  }

  @Test func aFailedStartShutsDown() {
    var lifecycle = ChatServerLifecycle.initial
    _ = lifecycle.start()
    #expect(lifecycle.startFailed() == .shutDown)
    #expect(lifecycle.shutdown(reason: "caller cleans up") == .none)
    lifecycle.stopped()
    #expect(lifecycle == .stopped)
  }

  // MARK: A real server

  @Test func shutdownBeforeStartAndTwiceIsHarmless() throws {
    let server = try ChatServer(configuration: .loopbackForTesting())
    server.shutdown()
    server.shutdown()
    #expect(server.tcpAddress == nil)
  }

  @Test func shutdownAfterStartTwiceIsHarmless() throws {
    let server = try ChatServer(configuration: .loopbackForTesting())
    try server.start()
    #expect(server.tcpAddress != nil && server.udpAddress != nil && server.httpAddress != nil)
    server.shutdown()
    server.shutdown(reason: "again")
  }

  @Test func aFailedStartLeavesTheServerShutDown() throws {
    let first = try ChatServer(configuration: .loopbackForTesting())
    try first.start()
    defer { first.shutdown() }
    var taken = ServerConfiguration.loopbackForTesting()
    taken.tcpPort = first.tcpAddress!.port
    let second = try ChatServer(configuration: taken)
    #expect(throws: ServerError.self) { try second.start() }
    // Shut down by the failed start already (its loops are stopped): this returns at once.
    second.shutdown()
  }
}
