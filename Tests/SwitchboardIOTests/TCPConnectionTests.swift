import SwitchboardIO
import Testing
import SwitchboardTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite(.onTestThreads)
struct TCPConnectionTests {
  @Test(arguments: SelectorBackend.available)
  func echoServerServesFiftyConcurrentClients(backend: SelectorBackend) throws {
    let server = try TestServer(backend: backend, loops: 2) { _, delegate in
      delegate.echo = true
      delegate.keepReceived = false
    }
    defer { server.shutdown() }
    let clients = try EventLoop(backend: backend)
    defer { clients.shutdownGracefully() }

    let size = 100 * 1024
    let outcomes = Locked<[Int: Result<Bool, IOError>]>([:])
    for i in 0..<50 {
      clients.execute {
        let payload = pattern(count: size, seed: UInt64(i + 1))
        TCPConnection.connect(to: server.address, on: clients) { result in
          switch result {
          case .success(let connection):
            let client = EchoClient(expecting: payload) { outcome in
              outcomes.withLock { $0[i] = outcome }
            }
            connection.delegate = client
            // Uneven pieces, so the echo comes back in different splits than it went.
            var start = 0
            for piece in [1, 999, 10_000, 30_001].cycled(until: size) {
              let end = min(start + piece, size)
              connection.write(SharedBytes(payload[start..<end]))
              start = end
            }
          case .failure(let error):
            outcomes.withLock { $0[i] = .failure(error) }
          }
        }
      }
    }
    #expect(eventually(timeout: .seconds(15)) { outcomes.value.count == 50 })
    let results = outcomes.value
    for i in 0..<50 {
      switch results[i] {
      case .success(true): break
      case .success(false): Issue.record("client \(i): echo differs from what it sent")
      case .failure(let error): Issue.record("client \(i): \(error)")
      case nil: Issue.record("client \(i) did not finish")
      }
    }
    let logs = try server.waitForConnections(50)
    #expect(eventually { logs.allSatisfy(\.closed) })
    #expect(logs.allSatisfy { $0.receivedCount == size && $0.closeError == nil })
    #expect(server.errors.value.isEmpty)
  }

  @Test(
    .enabled(ifAvailable: ipv6LoopbackAvailable(), "IPv6 loopback is unavailable here"),
    arguments: SelectorBackend.available)
  func echoesOverIPv6Loopback(backend: SelectorBackend) throws {
    let server = try TestServer(backend: backend, host: "::1") { _, delegate in delegate.echo = true }
    defer { server.shutdown() }
    #expect(server.address.family == AF_INET6)
    #expect(server.address.ipAddress == "::1")
    #expect(server.address.port != 0)

    let client = try BlockingClient(connectingTo: server.address)
    let message = pattern(count: 100_000, seed: 6)
    try client.send(message)
    #expect(firstDifference(try client.receive(exactly: message.count), message) == nil)
    let log = try server.waitForConnections(1)[0]
    let remote = try onLoop(log.loop) { log.connection.value.remoteAddress }
    #expect(remote != nil && remote == client.localAddress)
    #expect(remote?.ipAddress == "::1")
    client.close()
    #expect(eventually { log.closed })
    #expect(log.closeError == nil)
  }

  @Test(arguments: SelectorBackend.available)
  func largeWritesArriveIntactAndInOrderThroughASlowReader(backend: SelectorBackend) throws {
    let total = 8 << 20
    let payload = pattern(count: total, seed: 8)
    // Hundreds of uneven chunks: more than one writev's worth of iovecs, and partial
    // writes that end inside a chunk.
    var chunks: [SharedBytes] = []
    var start = 0
    for piece in [1, 4095, 65_536, 100_003, 13, 30_000].cycled(until: total) {
      let end = min(start + piece, total)
      chunks.append(SharedBytes(payload[start..<end]))
      start = end
    }
    #expect(chunks.count > 64)
    let server = try TestServer(backend: backend) { [chunks] connection, delegate in
      connection.limits.maximumBuffered = 16 << 20
      for chunk in chunks { connection.write(chunk) }
      delegate.log.note("buffered", connection.bufferedBytes)
      connection.close()
    }
    defer { server.shutdown() }

    let client = try BlockingClient(connectingTo: server.address, receiveBuffer: 16 * 1024)
    let received = try client.receiveUntilEOF(limit: total, chunk: 4096)
    #expect(received.count == total)
    #expect(firstDifference(received, payload) == nil)
    let log = try server.waitForConnections(1)[0]
    #expect(log.notes["buffered"] == total)
    #expect(eventually { log.closed })
    #expect(log.closeError == nil)
    #expect(log.writability == [false, true])
  }

  @Test(arguments: SelectorBackend.available)
  func manySmallWritesInOneIterationArriveConcatenatedInOrder(backend: SelectorBackend) throws {
    let messages = (0..<10_000).map { "message \($0);" }
    let server = try TestServer(backend: backend) { connection, _ in
      for message in messages { connection.write(string: message) }
      connection.close()
    }
    defer { server.shutdown() }
    let client = try BlockingClient(connectingTo: server.address)
    let received = try client.receiveUntilEOF()
    #expect(firstDifference(received, Array(messages.joined().utf8)) == nil)
  }

  @Test(arguments: SelectorBackend.available)
  func halfCloseIsReportedAsEOFAndTheConnectionCanStillWrite(backend: SelectorBackend) throws {
    let server = try TestServer(backend: backend) { _, delegate in
      let log = delegate.log
      delegate.onEOF = { connection in
        connection.write(string: "got \(log.receivedCount) bytes")
        connection.close()
      }
    }
    defer { server.shutdown() }
    let client = try BlockingClient(connectingTo: server.address)
    try client.send("hello")
    client.shutdownWrite()
    #expect(String(decoding: try client.receiveUntilEOF(), as: UTF8.self) == "got 5 bytes")
    let log = try server.waitForConnections(1)[0]
    #expect(eventually { log.closed })
    #expect(log.eofCount == 1)
    #expect(log.received == Array("hello".utf8))
    #expect(log.closeError == nil)
  }

  @Test(arguments: SelectorBackend.available)
  func shutdownOutputSendsQueuedDataBeforeTheFIN(backend: SelectorBackend) throws {
    let total = 2 << 20
    let payload = SharedBytes(pattern(count: total, seed: 4))
    let server = try TestServer(backend: backend) { connection, delegate in
      shrinkSendBuffer(connection)
      delegate.onEOF = { $0.close() }
      connection.write(payload)
      connection.shutdownOutput()
    }
    defer { server.shutdown() }
    let client = try BlockingClient(connectingTo: server.address, receiveBuffer: 16 * 1024)
    let received = try client.receiveUntilEOF(chunk: 8192)
    #expect(received.count == total)
    #expect(firstDifference(received, payload.array) == nil)
    // Half-closed, not closed: the server still reads, then closes on the client's EOF.
    try client.send("bye")
    client.shutdownWrite()
    let log = try server.waitForConnections(1)[0]
    #expect(eventually { log.closed })
    #expect(log.received == Array("bye".utf8))
    #expect(log.closeError == nil)
  }

  @Test(arguments: SelectorBackend.available)
  func halfOpenConnectionDoesNotBusyLoop(backend: SelectorBackend) throws {
    // The delegate keeps the connection open after EOF (to answer later, say). The loop
    // must then sleep, not spin on a descriptor that stays "readable".
    let server = try TestServer(backend: backend) { _, delegate in delegate.onEOF = { _ in } }
    defer { server.shutdown() }
    let client = try BlockingClient(connectingTo: server.address)
    try client.send("x")
    client.shutdownWrite()
    let log = try server.waitForConnections(1)[0]
    #expect(eventually { log.eofCount == 1 })
    let cpu = try loopCPUTime(log.loop, over: .milliseconds(200))
    #expect(cpu < .milliseconds(50), "the loop used \(cpu) of CPU in 200 ms while idle")
    #expect(log.eofCount == 1)
    // Still able to answer, then close.
    try onLoop(log.loop) {
      let connection = log.connection.value
      connection.write(string: "late answer")
      connection.close()
    }
    #expect(String(decoding: try client.receiveUntilEOF(), as: UTF8.self) == "late answer")
    #expect(eventually { log.closed })
  }

  @Test(arguments: SelectorBackend.available)
  func peerResetOfAHalfOpenConnectionDoesNotBusyLoop(backend: SelectorBackend) throws {
    let server = try TestServer(backend: backend) { _, delegate in delegate.onEOF = { _ in } }
    defer { server.shutdown() }
    let client = try BlockingClient(connectingTo: server.address)
    client.shutdownWrite()
    let log = try server.waitForConnections(1)[0]
    #expect(eventually { log.eofCount == 1 })
    client.resetAndClose()
    let cpu = try loopCPUTime(log.loop, over: .milliseconds(200))
    #expect(cpu < .milliseconds(50), "the loop used \(cpu) of CPU in 200 ms after the reset")
    // Whether or not the loop noticed the reset by itself, writing finds it.
    try onLoop(log.loop) { log.connection.value.write(string: "anyone there?") }
    #expect(eventually { log.closed })
    #expect(log.closeError?.isConnectionReset == true, "closed with \(String(describing: log.closeError))")
  }

  @Test(arguments: SelectorBackend.available)
  func peerResetClosesTheConnectionWithAnError(backend: SelectorBackend) throws {
    let server = try TestServer(backend: backend)
    defer { server.shutdown() }
    let client = try BlockingClient(connectingTo: server.address)
    try client.send("abc")
    let log = try server.waitForConnections(1)[0]
    #expect(eventually { log.receivedCount == 3 })
    client.resetAndClose()
    #expect(eventually { log.closed })
    #expect(log.closeError?.isConnectionReset == true, "closed with \(String(describing: log.closeError))")
    #expect(log.eofCount == 0)
  }

  @Test(arguments: SelectorBackend.available)
  func peerResetWhileWritingClosesTheConnectionWithAnError(backend: SelectorBackend) throws {
    let server = try TestServer(backend: backend) { connection, _ in
      connection.limits.maximumBuffered = 64 << 20
      connection.write(SharedBytes(pattern(count: 8 << 20)))
    }
    defer { server.shutdown() }
    // A generous deadline: building and queueing 8 MiB in a debug build took over the default
    // 5 s on a loaded 2-core machine (recv timed out with EAGAIN).
    let client = try BlockingClient(connectingTo: server.address, receiveBuffer: 4096, timeout: .seconds(30))
    #expect(try client.receive(upTo: 1000).count > 0)
    let log = try server.waitForConnections(1, timeout: .seconds(30))[0]
    client.resetAndClose()
    #expect(eventually { log.closed })
    #expect(log.closeError?.isConnectionReset == true, "closed with \(String(describing: log.closeError))")
  }

  @Test(arguments: SelectorBackend.available)
  func closeFlushesQueuedDataBeforeClosing(backend: SelectorBackend) throws {
    let total = 2 << 20
    let payload = SharedBytes(pattern(count: total, seed: 3))
    let server = try TestServer(backend: backend) { connection, delegate in
      connection.write(payload)
      connection.close()
      // Nothing is flushed before the end of the loop iteration, so all of it is queued.
      delegate.log.note("buffered at close", connection.bufferedBytes)
      delegate.log.note("closed at once", connection.isClosed ? 1 : 0)
    }
    defer { server.shutdown() }
    let client = try BlockingClient(connectingTo: server.address, receiveBuffer: 16 * 1024)
    let received = try client.receiveUntilEOF(chunk: 8192)
    #expect(firstDifference(received, payload.array) == nil)
    let log = try server.waitForConnections(1)[0]
    #expect(log.notes == ["buffered at close": total, "closed at once": 0])
    #expect(eventually { log.closed })
    #expect(log.closeError == nil)
  }

  @Test(arguments: SelectorBackend.available)
  func resetDropsQueuedData(backend: SelectorBackend) throws {
    let total = 1 << 20
    let server = try TestServer(backend: backend) { connection, delegate in
      connection.write(SharedBytes(pattern(count: total)))
      connection.reset()
      delegate.log.note("buffered after reset", connection.bufferedBytes)
    }
    defer { server.shutdown() }
    let client = try BlockingClient(connectingTo: server.address)
    var received = 0
    var ending: IOError?
    while true {
      do {
        let part = try client.receive()
        if part.isEmpty { break }
        received += part.count
      } catch let error as IOError {
        ending = error
        break
      }
    }
    #expect(received < total)
    #expect(ending == nil || ending?.errno == ECONNRESET, "receive failed with \(String(describing: ending))")
    let log = try server.waitForConnections(1)[0]
    #expect(log.closed)
    #expect(log.closeError == nil)
    #expect(log.notes["buffered after reset"] == 0)
  }

  @Test(arguments: SelectorBackend.available)
  func connectReachesAListener(backend: SelectorBackend) throws {
    let server = try TestServer(backend: backend) { _, delegate in delegate.echo = true }
    defer { server.shutdown() }
    let loop = try EventLoop(backend: backend)
    defer { loop.shutdownGracefully() }
    let outcome = Locked<Result<ConnectionLog, IOError>?>(nil)
    loop.execute {
      TCPConnection.connect(to: server.address, on: loop) { result in
        let logged = result.map { connection in
          let log = ConnectionLog(LoopBound(connection, on: loop))
          let delegate = RecordingDelegate(log: log)
          connection.delegate = delegate
          connection.write(string: "hello")
          return log
        }
        outcome.withLock { $0 = logged }
      }
    }
    #expect(eventually { outcome.value != nil })
    let log = try #require(try outcome.value?.get())
    #expect(eventually { log.received == Array("hello".utf8) })
    #expect(try onLoop(loop) { log.connection.value.remoteAddress } == server.address)
    try onLoop(loop) { log.connection.value.close() }
    #expect(log.closed)
    let serverSide = try server.waitForConnections(1)[0]
    #expect(eventually { serverSide.closed })
  }

  @Test(arguments: SelectorBackend.available)
  func connectToAClosedPortFailsWithConnectionRefused(backend: SelectorBackend) throws {
    let (reserved, address) = try reservedClosedPort()
    defer { close(reserved) }
    let loop = try EventLoop(backend: backend)
    defer { loop.shutdownGracefully() }
    let outcome = Locked<Result<Int32, IOError>?>(nil)
    loop.execute {
      TCPConnection.connect(to: address, on: loop) { result in
        outcome.withLock { $0 = result.map(\.fd) }
      }
    }
    #expect(eventually { outcome.value != nil })
    switch outcome.value {
    case .failure(let error):
      #expect(error.call == "connect")
      #expect(error.errno == ECONNREFUSED)
      #expect(error.kind == .refused)
    case .success:
      Issue.record("connected to a port nobody listens on")
    case nil:
      Issue.record("connect neither failed nor succeeded")
    }
    #expect(try onLoop(loop) { loop.registeredCount } == 0)
  }
}

/// The client half of the echo test: reports whether what came back is what it sent.
private final class EchoClient: TCPConnectionDelegate {
  private let expected: [UInt8]
  private var received: [UInt8] = []
  private let done: (Result<Bool, IOError>) -> Void
  private var finished = false
  private var keepAlive: EchoClient?

  init(expecting expected: [UInt8], done: @escaping (Result<Bool, IOError>) -> Void) {
    self.expected = expected
    self.done = done
    received.reserveCapacity(expected.count)
    keepAlive = self
  }

  func connection(_ connection: TCPConnection, didRead bytes: UnsafeRawBufferPointer) {
    received.append(contentsOf: bytes)
    if received.count >= expected.count && !finished {
      finished = true
      done(.success(received == expected))
      connection.close()
    }
  }

  func connectionDidReadEOF(_ connection: TCPConnection) {
    connection.close()
  }

  func connection(_ connection: TCPConnection, didCloseWith error: IOError?) {
    if !finished {
      finished = true
      done(error.map { .failure($0) } ?? .success(false))
    }
    keepAlive = nil
  }
}

extension Array where Element == Int {
  /// These sizes repeated until they add up to at least `total`.
  func cycled(until total: Int) -> [Int] {
    var result: [Int] = []
    var sum = 0
    while sum < total {
      let next = self[result.count % count]
      result.append(next)
      sum += next
    }
    return result
  }
}
