import Testing

@testable import SwitchboardIO
import SwitchboardTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The io_uring backend's batched sends: every connection's output of an iteration goes
/// to the kernel in one submission, completions are settled in two phases, and a batch
/// that does not fit the ring is split.
@Suite(.onTestThreads, .enabled(ifAvailable: SelectorBackend.isIOUringAvailable, "io_uring is not available on this kernel"))
struct TCPConnectionRingTests {
  /// Rings small enough that one iteration's flush fills them several times.
  static let smallRing = 8

  @Test func fanOutWiderThanTheRingReachesEveryConnectionInOrder() throws {
    let clients = 40
    let server = try RingTestServer(sendRingEntries: Self.smallRing)
    defer { server.shutdown() }
    var sockets: [BlockingClient] = []
    for _ in 0..<clients { sockets.append(try BlockingClient(connectingTo: server.address)) }
    let connections = try server.base.waitForConnections(clients)
    // One loop task writes 3 frames to each of 40 connections: 40 sends through a ring of
    // 8, so the flush submits mid-way five times.
    try onLoop(server.loop) {
      for round in 0..<3 {
        for (i, log) in connections.enumerated() {
          log.connection.value.write(SharedBytes(string: "c\(i)r\(round);"))
        }
      }
    }
    for (i, client) in sockets.enumerated() {
      let expected = (0..<3).map { "c\(i)r\($0);" }.joined()
      let got = try client.receive(exactly: expected.utf8.count)
      #expect(String(decoding: got, as: UTF8.self) == expected)
    }
  }

  @Test func moreQueuedChunksThanOneSendCarriesLeaveInOrder() throws {
    let server = try RingTestServer(sendRingEntries: Self.smallRing)
    defer { server.shutdown() }
    let client = try BlockingClient(connectingTo: server.address)
    let log = try server.base.waitForConnections(1)[0]
    // 1,000 chunks in one iteration: a send carries at most 64, so the connection flushes
    // again after each completion without waiting for writability.
    let chunks = (0..<1000).map { "\($0)," }
    try onLoop(server.loop) {
      for chunk in chunks { log.connection.value.write(SharedBytes(string: chunk)) }
    }
    let expected = chunks.joined()
    let got = try client.receive(exactly: expected.utf8.count)
    #expect(String(decoding: got, as: UTF8.self) == expected)
    #expect(try eventually { try onLoop(server.loop) { log.connection.value.bufferedBytes == 0 } })
  }

  @Test func aDelegateThatWritesToAnotherConnectionOfTheBatchSendsNothingTwice() throws {
    let server = try RingTestServer(sendRingEntries: Self.smallRing)
    defer { server.shutdown() }
    let first = try BlockingClient(connectingTo: server.address)
    let second = try BlockingClient(connectingTo: server.address)
    let logs = try server.base.waitForConnections(2)
    let a = logs[0].connection, b = logs[1].connection
    try onLoop(server.loop) {
      // Both sends go into one batch. A closes after its send, and its close handler
      // writes to B and closes B while B's completion belongs to the same batch: B's
      // first bytes must leave exactly once, and the later ones behind them.
      let delegate = CloseRelay(then: { b.value.write(SharedBytes(string: "after;")); b.value.close() })
      a.value.delegate = delegate
      a.value.write(SharedBytes(string: "a-bytes;"))
      b.value.write(SharedBytes(string: "b-bytes;"))
      a.value.close()
    }
    #expect(String(decoding: try first.receiveUntilEOF(), as: UTF8.self) == "a-bytes;")
    #expect(String(decoding: try second.receiveUntilEOF(), as: UTF8.self) == "b-bytes;after;")
  }

  @Test func aConnectionResetWhileItsSendIsInTheRingKeepsItsDescriptorUntilTheSend() throws {
    let server = try RingTestServer(sendRingEntries: Self.smallRing)
    defer { server.shutdown() }
    let victim = try BlockingClient(connectingTo: server.address)
    let staying = try BlockingClient(connectingTo: server.address)
    let logs = try server.base.waitForConnections(2)
    let a = logs[0].connection, b = logs[1].connection
    let loop = server.loop
    let registeredBefore = try onLoop(loop) { loop.registeredCount }
    let (openAfterReset, newSocketFD, aFD) = try onLoop(loop) {
      // A's send goes into the ring (its flush called directly, as the loop's flush list
      // would), then A is reset in the same iteration, before the ring is submitted.
      a.value.write(SharedBytes(string: String(repeating: "a", count: 3000)))
      a.value.flush()
      b.value.write(SharedBytes(string: "b-bytes;"))
      a.value.reset()
      // Until the ring's send completes, A's descriptor stays open, so a socket opened now
      // cannot be given the number that send names.
      let open = fcntl(a.value.fd, F_GETFD) != -1
      let fresh = Posix.makeSocket(family: AF_INET, type: Posix.streamType)
      return (open, fresh, a.value.fd)
    }
    defer { if newSocketFD >= 0 { _ = Posix.close(newSocketFD) } }
    #expect(openAfterReset, "A's descriptor was closed while its send was in the ring")
    #expect(newSocketFD != aFD)
    #expect(logs[0].closed)
    // The batch went out whole: B got its bytes, and A's descriptor left the loop after.
    #expect(String(decoding: try staying.receive(exactly: 8), as: UTF8.self) == "b-bytes;")
    #expect(try eventually { try onLoop(loop) { loop.registeredCount == registeredBefore - 1 } })
    _ = victim
  }

  @Test func aPeerThatResetsMidBatchFailsOnlyItsOwnConnection() throws {
    let server = try RingTestServer(sendRingEntries: Self.smallRing)
    defer { server.shutdown() }
    let gone = try BlockingClient(connectingTo: server.address)
    let staying = try BlockingClient(connectingTo: server.address)
    let logs = try server.base.waitForConnections(2)
    gone.resetAndClose()
    // The server learns of the reset only from a send: write until the ring reports it.
    #expect(
      try eventually {
        try onLoop(server.loop) {
          for log in logs where !log.connection.value.isClosed {
            log.connection.value.write(SharedBytes(string: "x"))
          }
        }
        return logs[0].closed
      })
    #expect(logs[0].closeError != nil)
    #expect(!logs[1].closed)
    try onLoop(server.loop) { logs[1].connection.value.write(SharedBytes(string: "end")) }
    var got: [UInt8] = []
    while !got.suffix(3).elementsEqual(Array("end".utf8)) {
      let part = try staying.receive()
      if part.isEmpty { break }
      got += part
    }
    #expect(got.allSatisfy { $0 == UInt8(ascii: "x") || "end".utf8.contains($0) })
    #expect(got.suffix(3).elementsEqual(Array("end".utf8)))
  }
}

/// Closes the relay's connection's story: runs `then` when the connection closes.
private final class CloseRelay: TCPConnectionDelegate {
  let then: () -> Void
  private var keepAlive: CloseRelay?
  init(then: @escaping () -> Void) {
    self.then = then
    keepAlive = self
  }
  func connection(_ connection: TCPConnection, didRead bytes: UnsafeRawBufferPointer) {}
  func connection(_ connection: TCPConnection, didCloseWith error: IOError?) {
    then()
    keepAlive = nil
  }
}

/// A ``TestServer`` on one io_uring loop with a ring of `sendRingEntries`.
private final class RingTestServer {
  let base: TestServer
  var address: SocketAddress { base.address }
  var loop: EventLoop { base.group.loops[0] }
  init(sendRingEntries: Int) throws {
    base = try TestServer(group: EventLoopGroup(count: 1, backend: .ioUring, sendRingEntries: sendRingEntries))
  }
  func shutdown() { base.shutdown() }
}
