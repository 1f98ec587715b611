import SwitchboardIO
import Testing
import SwitchboardTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Bytes waiting unread in the kernel's receive queue of `log`'s connection.
private func unreadBytes(_ log: ConnectionLog) throws -> Int {
  try onLoop(log.loop) {
    var buffer = [UInt8](repeating: 0, count: 4096)
    let n = recv(log.connection.value.fd, &buffer, buffer.count, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
    return max(n, 0)
  }
}

extension TCPConnectionTests {
  @Test(arguments: SelectorBackend.available)
  func writabilityFlipsAtTheHighWaterMarkAndReadingPausesUntilTheClientDrains(
    backend: SelectorBackend
  ) throws {
    let total = 1 << 20
    let payload = SharedBytes(pattern(count: total, seed: 11))
    let server = try TestServer(backend: backend) { connection, _ in
      shrinkSendBuffer(connection)
      connection.limits.highWaterMark = 64 * 1024
      connection.limits.lowWaterMark = 16 * 1024
      connection.write(payload)
    }
    defer { server.shutdown() }
    let client = try BlockingClient(connectingTo: server.address, receiveBuffer: 16 * 1024)
    let log = try server.waitForConnections(1)[0]
    #expect(log.writability == [false])

    // While unwritable the server does not read: the client's bytes stay in the kernel.
    try client.send("ping")
    #expect(try eventually { try unreadBytes(log) == 4 })
    for _ in 0..<3 { try onLoop(log.loop) {} }  // loop iterations that could have read
    #expect(log.receivedCount == 0)
    #expect(try unreadBytes(log) == 4)

    // The client drains: writable again, and the pending "ping" is read.
    let received = try client.receive(exactly: total, chunk: 8192)
    #expect(firstDifference(received, payload.array) == nil)
    #expect(eventually { log.writability == [false, true] })
    #expect(eventually { log.received == Array("ping".utf8) })
    client.close()
    #expect(eventually { log.closed })
  }

  @Test(arguments: SelectorBackend.available)
  func peerHalfCloseWhileUnwritableDoesNotBusyLoop(backend: SelectorBackend) throws {
    let server = try TestServer(backend: backend) { connection, _ in
      shrinkSendBuffer(connection)
      connection.limits.highWaterMark = 64 * 1024
      connection.write(SharedBytes(pattern(count: 1 << 20)))
    }
    defer { server.shutdown() }
    let client = try BlockingClient(connectingTo: server.address, receiveBuffer: 16 * 1024)
    let log = try server.waitForConnections(1)[0]
    #expect(log.writability == [false])
    client.shutdownWrite()
    // Reading is paused, so the EOF waits in the kernel; the loop must not spin on it.
    let cpu = try loopCPUTime(log.loop, over: .milliseconds(200))
    #expect(cpu < .milliseconds(50), "the loop used \(cpu) of CPU in 200 ms while waiting")
    // Draining brings reading back, and with it the EOF.
    #expect(try client.receive(exactly: 1 << 20, chunk: 65536).count == 1 << 20)
    #expect(eventually { log.eofCount == 1 && log.closed })
  }

  @Test(arguments: SelectorBackend.available)
  func slowConsumerIsClosedAndBufferingStaysBounded(backend: SelectorBackend) throws {
    let cap = 256 * 1024
    let chunk = 16 * 1024
    let data = SharedBytes(pattern(count: chunk))
    let server = try TestServer(backend: backend) { connection, delegate in
      shrinkSendBuffer(connection)
      connection.limits.highWaterMark = 64 * 1024
      connection.limits.lowWaterMark = 16 * 1024
      connection.limits.maximumBuffered = cap
      let log = delegate.log
      let writer = Locked<Scheduled?>(nil)
      var maxBuffered = 0
      writer.withLock {
        $0 = connection.loop.scheduleRepeatingLocal(every: .milliseconds(1)) {
          guard !connection.isClosed else {
            writer.value?.cancel()
            return
          }
          connection.write(data)
          if !connection.isClosed { maxBuffered = max(maxBuffered, connection.bufferedBytes) }
          log.note("max buffered", maxBuffered)
        }
      }
    }
    defer { server.shutdown() }
    let client = try BlockingClient(connectingTo: server.address, receiveBuffer: 16 * 1024)
    let log = try server.waitForConnections(1)[0]
    #expect(eventually(timeout: .seconds(10)) { log.closed })
    #expect(log.closeError?.kind == .slowConsumer)
    #expect(log.writability.first == false)
    let maxBuffered = log.notes["max buffered"] ?? 0
    #expect(maxBuffered > 64 * 1024)
    #expect(maxBuffered <= cap + chunk)

    // The client learns of it as a reset, after whatever reached its buffer.
    var ending: IOError?
    while ending == nil {
      do {
        if try client.receive().isEmpty { break }
      } catch let error as IOError {
        ending = error
      }
    }
    #expect(ending?.errno == ECONNRESET)
  }
}
