import SwitchboardIO
import Testing
import SwitchboardTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One datagram as a delegate saw it.
struct Datagram: Sendable, Equatable {
  var bytes: [UInt8]
  var sender: SocketAddress
  var text: String { String(decoding: bytes, as: UTF8.self) }
}

/// Records datagrams and, if asked, answers each with `"pong:" + payload`.
private final class DatagramRecorder: UDPSocketDelegate {
  let received = Locked<[Datagram]>([])
  var replies = false

  func socket(
    _ socket: UDPSocket, didReceive bytes: UnsafeRawBufferPointer, from sender: SocketAddress, truncated: Bool
  ) {
    let datagram = Datagram(bytes: Array(bytes), sender: sender)
    received.withLock { $0.append(datagram) }
    if replies { socket.send(SharedBytes(Array("pong:".utf8) + datagram.bytes), to: sender) }
  }
}

/// A UDP socket on 127.0.0.1 with its recorder, owned by its loop.
private struct Endpoint: Sendable {
  let socket: LoopBound<(UDPSocket, DatagramRecorder)>
  let address: SocketAddress
  let received: Locked<[Datagram]>

  init(on loop: EventLoop, replies: Bool = false) throws {
    (socket, address, received) = try onLoop(loop) {
      let socket = try UDPSocket(bindingTo: SocketAddress(host: "127.0.0.1", port: 0), loop: loop)
      let recorder = DatagramRecorder()
      recorder.replies = replies
      socket.delegate = recorder
      return (LoopBound((socket, recorder), on: loop), socket.localAddress, recorder.received)
    }
  }

  func send(_ text: String, to address: SocketAddress) throws -> Bool {
    let socket = self.socket
    return try onLoop(socket.loop) { socket.value.0.send(SharedBytes(string: text), to: address) }
  }

  func close() {
    let socket = self.socket
    _ = try? onLoop(socket.loop) { socket.value.0.close() }
  }
}

@Suite(.onTestThreads)
struct UDPSocketTests {
  @Test(arguments: SelectorBackend.available)
  func datagramsRoundTripWithTheSenderAddress(backend: SelectorBackend) throws {
    let group = try EventLoopGroup(count: 2, backend: backend)
    defer { group.shutdownGracefully() }
    let client = try Endpoint(on: group.loops[0])
    defer { client.close() }
    let server = try Endpoint(on: group.loops[1], replies: true)
    defer { server.close() }
    #expect(client.address.port != 0 && server.address.port != 0 && client.address != server.address)

    for i in 0..<20 { #expect(try client.send("ping \(i)", to: server.address)) }
    #expect(eventually { client.received.value.count == 20 })
    #expect(Set(server.received.value.map(\.text)) == Set((0..<20).map { "ping \($0)" }))
    #expect(server.received.value.allSatisfy { $0.sender == client.address })
    #expect(Set(client.received.value.map(\.text)) == Set((0..<20).map { "pong:ping \($0)" }))
    #expect(client.received.value.allSatisfy { $0.sender == server.address })
  }

  @Test(arguments: SelectorBackend.available)
  func largeDatagramArrivesWhole(backend: SelectorBackend) throws {
    let loop = try EventLoop(backend: backend)
    defer { loop.shutdownGracefully() }
    let a = try Endpoint(on: loop)
    defer { a.close() }
    let b = try Endpoint(on: loop)
    defer { b.close() }
    let payload = pattern(count: 60_000, seed: 5)
    let target = b.address
    let sent = try onLoop(loop) { [a] in a.socket.value.0.send(SharedBytes(payload), to: target) }
    #expect(sent)
    #expect(eventually { b.received.value.count == 1 })
    #expect(firstDifference(b.received.value.first?.bytes ?? [], payload) == nil)
  }

  @Test(arguments: SelectorBackend.available)
  func sendingToAClosedPortDoesNotBreakTheSocket(backend: SelectorBackend) throws {
    let loop = try EventLoop(backend: backend)
    defer { loop.shutdownGracefully() }
    // A port that was just free: datagrams to it draw ICMP "port unreachable".
    let (reserved, closedPort) = try reservedClosedPort(type: Posix.datagramType)
    close(reserved)
    let client = try Endpoint(on: loop)
    defer { client.close() }
    let server = try Endpoint(on: loop, replies: true)
    defer { server.close() }

    for round in 0..<5 {
      _ = try client.send("into the void \(round)", to: closedPort)
      #expect(try client.send("ping \(round)", to: server.address))
      #expect(eventually { client.received.value.count == round + 1 }, "round \(round)")
    }
    #expect(client.received.value.map(\.text) == (0..<5).map { "pong:ping \($0)" })
    #expect(server.received.value.count == 5)
  }

  @Test(arguments: SelectorBackend.available)
  func closedSocketDropsSends(backend: SelectorBackend) throws {
    let loop = try EventLoop(backend: backend)
    defer { loop.shutdownGracefully() }
    let a = try Endpoint(on: loop)
    let b = try Endpoint(on: loop)
    defer { b.close() }
    a.close()
    #expect(try !a.send("after close", to: b.address))
    #expect(try onLoop(loop) { loop.registeredCount } == 1)
  }
}
