import Testing

@testable import SwitchboardIO
import SwitchboardTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What an idle connection costs the event-loop layer: the bytes of the `TCPConnection`
/// object as the allocator hands them out (docs/BENCHMARKS.md, "Memory per idle
/// connection", leads to the inventory these figures guard).
@Suite(.onTestThreads, .enabled(ifAvailable: HeapBlocks.available, HeapBlocks.needed))
struct TCPConnectionFootprintTests {
  @Test(arguments: SelectorBackend.available)
  func anIdleConnectionIsOneSmallObject(backend: SelectorBackend) throws {
    // An answer written and flushed first, as a server's handshake does: the idle state
    // after output, not only the state straight after the accept.
    let server = try TestServer(backend: backend) { connection, _ in
      connection.write(SharedBytes(string: "hello\n"))
    }
    defer { server.shutdown() }
    let client = try BlockingClient(connectingTo: server.address)
    #expect(try client.receive(exactly: 6) == Array("hello\n".utf8))
    let log = try server.waitForConnections(1)[0]
    let bytes = try onLoop(log.loop) {
      let connection = log.connection.value
      return (
        object: HeapBlocks.usableSize(of: connection),
        buffered: connection.bufferedBytes
      )
    }
    #expect(bytes.buffered == 0)
    // 200 bytes when this test was written (the allocator's size class for the layout the
    // compiler chose: a new field shows here); 312 before the rarely used state moved
    // out of the object. The bound has 32 bytes of slack: glibc may hand out a free chunk
    // up to that much larger than asked (it splits a chunk only when the rest is ≥ 32), and
    // in a full `swift test` run the heap is full of other tests' freed chunks.
    #expect(bytes.object <= 232, "TCPConnection takes \(bytes.object) bytes")
  }
}
