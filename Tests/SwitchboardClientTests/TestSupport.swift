import SwitchboardClient
import SwitchboardIO
import SwitchboardTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension WebSocketClient {
  /// The next event, or `nil` once the stream has finished; fails after `timeout`
  /// (which also cancels the stream and so closes the connection).
  func nextEvent(timeout: Duration = .seconds(20)) async throws -> Event? {
    let events = self.events
    return try await withTimeout(timeout) {
      var iterator = events.makeAsyncIterator()
      return await iterator.next()
    }
  }

  /// The next event that is not a ping or pong.
  func nextMessage(timeout: Duration = .seconds(20)) async throws -> Event? {
    while let event = try await nextEvent(timeout: timeout) {
      switch event {
      case .ping, .pong: continue
      default: return event
      }
    }
    return nil
  }
}

/// A TCP socket bound to 127.0.0.1 on a kernel-chosen port; listening (but never
/// accepting) when `listen` is set, otherwise just bound so that connects are refused.
final class RawSocket: @unchecked Sendable {
  // Safety: `fd` and `port` are immutable; the socket is only closed in deinit.
  let fd: Int32
  let port: Int

  init(listen shouldListen: Bool) throws {
    fd = Posix.makeSocket(family: AF_INET, type: Posix.streamType)
    guard fd >= 0 else { throw TestFailure("socket failed") }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = 0
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    let fd = self.fd
    let ok = withUnsafeMutablePointer(to: &addr) { p in
      p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
        bind(fd, sa, len) == 0 && getsockname(fd, sa, &len) == 0
      }
    }
    guard ok else {
      close(fd)
      throw TestFailure("bind failed")
    }
    if shouldListen && listen(fd, 8) != 0 {
      close(fd)
      throw TestFailure("listen failed")
    }
    port = Int(UInt16(bigEndian: addr.sin_port))
  }

  deinit { close(fd) }

  /// Whether a connection waits to be accepted (the listening socket polls readable).
  var hasPendingConnection: Bool {
    var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    return poll(&pfd, 1, 0) == 1
  }
}
