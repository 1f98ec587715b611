import SwitchboardIO
import Testing
import SwitchboardTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite(.onTestThreads)
struct TCPListenerTests {
  /// Starts a listener on `loop` whose accepted descriptors are recorded and closed.
  private func listen(
    on loop: EventLoop, at address: SocketAddress, options: SocketOptions = SocketOptions(),
    accepted: Locked<[SocketAddress?]> = Locked([])
  ) throws -> LoopBound<TCPListener> {
    try onLoop(loop) {
      let listener = try TCPListener(address: address, options: options, loop: loop) { fd, peer in
        accepted.withLock { $0.append(peer) }
        _ = close(fd)
      }
      return LoopBound(listener, on: loop)
    }
  }

  @Test(arguments: SelectorBackend.available)
  func localAddressReportsTheKernelChosenPort(backend: SelectorBackend) throws {
    let loop = try EventLoop(backend: backend)
    defer { loop.shutdownGracefully() }
    let accepted = Locked<[SocketAddress?]>([])
    let listener = try listen(on: loop, at: SocketAddress(host: "127.0.0.1", port: 0), accepted: accepted)
    defer { _ = try? onLoop(loop) { listener.value.close() } }
    let address = try onLoop(loop) { listener.value.localAddress }
    #expect(address.port != 0)
    #expect(address.ipAddress == "127.0.0.1")

    let client = try BlockingClient(connectingTo: address)
    #expect(eventually { accepted.value.count == 1 })
    #expect(accepted.value == [client.localAddress])
    // The listener's accepted socket was closed, so the client sees EOF.
    #expect(try client.receive().isEmpty)
  }

  @Test(arguments: SelectorBackend.available)
  func bindingAPortInUseThrowsAddressInUse(backend: SelectorBackend) throws {
    let loop = try EventLoop(backend: backend)
    defer { loop.shutdownGracefully() }
    let first = try listen(on: loop, at: SocketAddress(host: "127.0.0.1", port: 0))
    defer { _ = try? onLoop(loop) { first.value.close() } }
    let address = try onLoop(loop) { first.value.localAddress }

    // SO_REUSEADDR is on by default; it must not let a second listener take the port.
    let outcome = try onLoop(loop) { () -> Result<Int, IOError> in
      do throws(IOError) {
        let second = try TCPListener(address: address, loop: loop) { fd, _ in _ = close(fd) }
        second.close()
        return .success(0)
      } catch {
        return .failure(error)
      }
    }
    switch outcome {
    case .failure(let error):
      #expect(error.call == "bind")
      #expect(error.errno == EADDRINUSE)
      #expect(error.kind == .addressInUse)
      #expect(error.description.contains(address.description))
    case .success:
      Issue.record("a second listener bound \(address)")
    }
    #expect(try onLoop(loop) { loop.registeredCount } == 1)
  }

  @Test(arguments: SelectorBackend.available)
  func reusePortLetsTwoListenersShareAPort(backend: SelectorBackend) throws {
    let loop = try EventLoop(backend: backend)
    defer { loop.shutdownGracefully() }
    var options = SocketOptions()
    options.reusePort = true
    let first = try listen(on: loop, at: SocketAddress(host: "127.0.0.1", port: 0), options: options)
    let address = try onLoop(loop) { first.value.localAddress }
    let second = try listen(on: loop, at: address, options: options)
    #expect(try onLoop(loop) { second.value.localAddress } == address)
    try onLoop(loop) {
      first.value.close()
      second.value.close()
    }
    #expect(try onLoop(loop) { loop.registeredCount } == 0)
  }

  @Test(arguments: SelectorBackend.available)
  func closeStopsAccepting(backend: SelectorBackend) throws {
    let loop = try EventLoop(backend: backend)
    defer { loop.shutdownGracefully() }
    let listener = try listen(on: loop, at: SocketAddress(host: "127.0.0.1", port: 0))
    let address = try onLoop(loop) { listener.value.localAddress }
    try onLoop(loop) {
      listener.value.close()
      listener.value.close()  // twice is harmless
    }
    // The Dispatch backend closes the descriptor once its sources are cancelled.
    #expect(eventuallyRefused(address))
  }
}
