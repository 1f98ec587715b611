import SwitchboardIO
import SwitchboardTestSupport
import Testing

/// A UDP socket has its port to itself unless every socket on it asks to share: the default
/// (``SocketOptions/exclusiveDatagram``) lets no later socket in, whatever options that one
/// sets, so a second server cannot silently take the first one's datagrams.
@Suite(.onTestThreads)
struct UDPSocketExclusiveTests {
  private static var sharing: SocketOptions {
    var options = SocketOptions()
    options.reuseAddress = true
    options.reusePort = true
    return options
  }

  /// Binds a first socket with `first`, then a second on its port with `second`: nil when
  /// the second bound (and shares the port), else why it could not.
  private func secondBind(first: SocketOptions, second: SocketOptions) throws -> IOError.Kind? {
    let loop = try EventLoop()
    defer { loop.shutdownGracefully() }
    return try onLoop(loop) { () throws -> IOError.Kind? in
      let holder = try UDPSocket(bindingTo: SocketAddress(host: "127.0.0.1", port: 0), options: first, loop: loop)
      defer { holder.close() }
      do {
        let other = try UDPSocket(bindingTo: holder.localAddress, options: second, loop: loop)
        other.close()
        return nil
      } catch let error as IOError {
        return error.kind
      }
    }
  }

  @Test func aPortADefaultSocketHoldsIsRefusedToEveryOtherSocket() throws {
    #expect(try secondBind(first: .exclusiveDatagram, second: .exclusiveDatagram) == .addressInUse)
    #expect(try secondBind(first: .exclusiveDatagram, second: Self.sharing) == .addressInUse)
    #expect(try secondBind(first: .exclusiveDatagram, second: SocketOptions()) == .addressInUse)
  }

  @Test func socketsThatAllAskToShareAPortShareIt() throws {
    #expect(try secondBind(first: Self.sharing, second: Self.sharing) == nil)
  }
}
