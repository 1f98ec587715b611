import SwitchboardIO
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Records datagrams with the interface they came in on.
private final class InterfaceRecorder: UDPSocketDelegate {
  let received = Locked<[(text: String, interface: UInt32)]>([])

  func socket(
    _ socket: UDPSocket, didReceive bytes: UnsafeRawBufferPointer, from sender: SocketAddress, truncated: Bool
  ) {
    received.withLock { $0.append((String(decoding: bytes, as: UTF8.self), 0)) }
  }

  func socket(
    _ socket: UDPSocket, didReceive bytes: UnsafeRawBufferPointer, from sender: SocketAddress,
    interface: UInt32,
    truncated: Bool
  ) {
    received.withLock { $0.append((String(decoding: bytes, as: UTF8.self), interface)) }
  }
}

/// The multicast options mDNS needs, on the loopback interface only (IPv4 multicast works on
/// `lo`; an administratively scoped group, never mDNS's, so nothing here is mDNS traffic).
/// Linux only: the packet-info calls are Linux's, as is the built-in responder that uses them.
@Suite(.onTestThreads, .enabled(ifAvailable: BuildPlatform.isLinux, "multicast packet info is Linux's"))
struct UDPSocketMulticastTests {
  @Test func twoSocketsShareAPortAndBothHearTheGroupWithTheInterface() throws {
    let loop = try EventLoop()
    defer { loop.shutdownGracefully() }
    let lo = if_nametoindex("lo")
    try #require(lo != 0, "no lo interface")
    let group = try SocketAddress(host: "239.255.77.1", port: 0)
    let setup = try onLoop(loop) { () throws -> LoopBound<[(UDPSocket, InterfaceRecorder)]> in
      var options = SocketOptions()
      options.reusePort = true
      let first = try UDPSocket(
        bindingTo: SocketAddress(host: "0.0.0.0", port: 0), options: options, loop: loop)
      // The second binds the same port next to the first: SO_REUSEPORT.
      let second = try UDPSocket(
        bindingTo: SocketAddress(host: "0.0.0.0", port: first.localAddress.port), options: options, loop: loop
      )
      var pairs: [(UDPSocket, InterfaceRecorder)] = []
      for socket in [first, second] {
        try socket.enableMulticast(hops: 255)
        try socket.joinMulticastGroup(group, interface: lo)
        let recorder = InterfaceRecorder()
        socket.delegate = recorder
        pairs.append((socket, recorder))
      }
      return LoopBound(pairs, on: loop)
    }
    let port = try onLoop(loop) { setup.value[0].0.localAddress.port }
    let sent = try onLoop(loop) {
      Array("hello group".utf8).withUnsafeBytes {
        setup.value[0].0.send($0, toGroup: group.withPort(port), interface: lo)
      }
    }
    #expect(sent)
    let recorders = try onLoop(loop) { setup.value.map { $0.1.received } }
    // Multicast loop is on: the sender hears itself too.
    #expect(eventually { recorders.allSatisfy { r in r.withLock { $0.count } >= 1 } })
    for recorder in recorders {
      let got = recorder.withLock { $0 }
      #expect(got.first?.text == "hello group")
      #expect(got.first?.interface == lo)
    }
    try onLoop(loop) { for (socket, _) in setup.value { socket.close() } }
  }

  @Test func aScopedAddressKeepsItsScopeAndBytes() throws {
    let address = try SocketAddress(host: "ff02::fb", port: 5353).withScope(3)
    #expect(address.scope == 3)
    #expect(address.addressBytes == [0xFF, 0x02] + Array(repeating: 0, count: 13) + [0xFB])
    #expect(try SocketAddress(host: "10.1.2.3", port: 1).addressBytes == [10, 1, 2, 3])
    #expect(try SocketAddress(host: "10.1.2.3", port: 1).withScope(3).scope == 0)
  }
}
