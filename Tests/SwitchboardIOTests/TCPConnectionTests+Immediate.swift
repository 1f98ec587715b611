import Testing

@testable import SwitchboardIO
import SwitchboardTestSupport

/// `write(_:immediately:)`: the write-through path fan-out uses when nothing else is
/// queued on the loop.
@Suite(.onTestThreads) struct TCPConnectionImmediateWriteTests {
  @Test(arguments: SelectorBackend.available)
  func immediateWritesGoOutAtOnceAndNeverOvertakeQueuedBytes(backend: SelectorBackend) throws {
    let server = try TestServer(backend: backend) { connection, delegate in
      connection.write(SharedBytes(string: "one;"), immediately: true)
      // Nothing was queued, so the kernel has it already.
      delegate.log.note("after first", connection.bufferedBytes)
      connection.write(SharedBytes(string: "two;"))
      // Queued bytes wait for the flush; an immediate write behind them waits too.
      connection.write(SharedBytes(string: "three;"), immediately: true)
      delegate.log.note("after third", connection.bufferedBytes)
      connection.loop.scheduleLocal(after: .milliseconds(1)) {
        // A later iteration: the queue is empty again.
        connection.write(SharedBytes(string: "four;"), immediately: true)
        delegate.log.note("after fourth", connection.bufferedBytes)
        connection.close()
      }
    }
    defer { server.shutdown() }
    let client = try BlockingClient(connectingTo: server.address)
    let received = try client.receiveUntilEOF()
    #expect(String(decoding: received, as: UTF8.self) == "one;two;three;four;")
    let log = try server.waitForConnections(1)[0]
    if backend == .ioUring {
      // With io_uring every write waits for the iteration's one batched send instead.
      #expect(log.notes == ["after first": 4, "after third": 14, "after fourth": 5])
    } else {
      #expect(log.notes == ["after first": 0, "after third": 10, "after fourth": 0])
    }
    #expect(eventually { log.closed })
    #expect(log.closeError == nil)
  }

  @Test(arguments: SelectorBackend.available)
  func immediateWriteLargerThanTheKernelTakesQueuesTheRestInOrder(backend: SelectorBackend) throws {
    let total = 4 << 20
    let first = pattern(count: total, seed: 11)
    let second = pattern(count: 1000, seed: 12)
    let server = try TestServer(backend: backend) { connection, delegate in
      shrinkSendBuffer(connection)
      connection.limits.maximumBuffered = 16 << 20
      connection.write(SharedBytes(first), immediately: true)
      delegate.log.note("queued", connection.bufferedBytes > 0 ? 1 : 0)
      delegate.log.note("writable", connection.isWritable ? 1 : 0)
      connection.write(SharedBytes(second), immediately: true)
      connection.close()
    }
    defer { server.shutdown() }
    let client = try BlockingClient(connectingTo: server.address, receiveBuffer: 16 * 1024)
    let received = try client.receiveUntilEOF(limit: total + 1000, chunk: 4096)
    #expect(received.count == total + 1000)
    #expect(firstDifference(received, first + second) == nil)
    let log = try server.waitForConnections(1)[0]
    // The kernel took part; the rest crossed the high-water mark and paused reading.
    #expect(log.notes == ["queued": 1, "writable": 0])
    #expect(eventually { log.closed })
    #expect(log.closeError == nil)
  }
}
