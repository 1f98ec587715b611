import Foundation
import SwitchboardIO
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `switchboard send udp://` (the real binary, so the client library under it) against a
/// scripted UDP server that loses, withholds or refuses: the address proof must retry, and
/// end in a clear error rather than hang or report a message delivered that was not.
@Suite(.onTestThreads, .enabled(ifAvailable: Executables.switchboard != nil, "switchboard binary not built"))
struct DatagramClientTests {
  private static let code = "0123456789abcdef"

  @Test func aLostOfferIsAskedForAgainAndTheMessageFollowsTheProof() async throws {
    let requests = Locked(0)
    let server = try ScriptedDatagramServer { text in
      if text.hasPrefix("/ok"), text.trimmingCharacters(in: .whitespaces) == "/ok" {
        // The first request (or its offer) is lost.
        let n = requests.withLock {
          $0 += 1
          return $0
        }
        return n == 1 ? [] : ["Server received: \(text)", "* send /ok \(Self.code) to chat"]
      }
      if text == "/ok \(Self.code)" { return ["Server received: \(text)", "* ok, you are in lobby"] }
      return ["Server received: \(text)"]
    }
    let send = try ChildProcess(
      Executables.switchboard!, ["send", "udp://127.0.0.1:\(server.port)", "hello", "--timeout", "10"])
    defer { send.stop() }
    #expect(try await send.waitForExit() == 0, "\(send.stderr)")
    #expect(requests.value >= 2)
    let seen = server.received
    let proof = try #require(seen.firstIndex(of: "/ok \(Self.code)"), "\(seen)")
    #expect(seen.firstIndex(of: "msg:hello").map { $0 > proof } == true, "\(seen)")
  }

  @Test func aServerThatNeverOffersACodeIsAClearTimeoutNotADelivery() async throws {
    // Echoes everything, as the seed's server does: an echo alone is no proof.
    let server = try ScriptedDatagramServer { ["Server received: \($0)"] }
    let send = try ChildProcess(
      Executables.switchboard!, ["send", "udp://127.0.0.1:\(server.port)", "hello", "--timeout", "2"])
    defer { send.stop() }
    #expect(try await send.waitForExit() == 1)
    #expect(send.stderr.contains("offered no code"), "\(send.stderr)")
    #expect(!server.received.contains("msg:hello"))
  }

  @Test func aRefusalBeforeTheProofFailsTheSendAtOnce() async throws {
    let refusal =
      "! authentication required: the UDP port takes no tokens (use tcp://, tls:// or ws:// with one)"
    let server = try ScriptedDatagramServer { _ in [refusal] }
    let started = ContinuousClock.now
    let send = try ChildProcess(
      Executables.switchboard!, ["send", "udp://127.0.0.1:\(server.port)", "hello", "--timeout", "30"])
    defer { send.stop() }
    // Refused for good (exit 2, docs/CLIENT.md "Refusals"), not a failure to reach (1).
    #expect(try await send.waitForExit(timeout: .seconds(40)) == 2)
    #expect(ContinuousClock.now - started < .seconds(15), "it waited for the timeout")
    #expect(send.stderr.contains("authentication required"), "\(send.stderr)")
  }
}

/// A UDP server on 127.0.0.1 (port 0) that answers each datagram with the datagrams its
/// script returns for it (each line one datagram, a newline added), and keeps what it got.
final class ScriptedDatagramServer: Sendable {
  let port: Int
  private let fd: Int32
  private let log = Locked<[String]>([])
  private let stopped = Locked(false)
  private let done = DispatchSemaphore(value: 0)

  init(_ script: @escaping @Sendable (String) -> [String]) throws {
    let fd = Posix.makeSocket(family: AF_INET, type: Posix.datagramType)
    guard fd >= 0 else { throw TestFailure("socket: errno \(errno)") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
      }
    }
    guard bound else {
      close(fd)
      throw TestFailure("bind: errno \(errno)")
    }
    self.fd = fd
    port = Int(UInt16(bigEndian: address.sin_port))
    var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let thread = Thread { [self] in
      serve(script)
      done.signal()
    }
    thread.start()
  }

  deinit {
    stopped.withLock { $0 = true }
    done.wait()
    close(fd)
  }

  /// Every datagram received so far, as text.
  var received: [String] { log.value }

  private func serve(_ script: (String) -> [String]) {
    var buffer = [UInt8](repeating: 0, count: 65536)
    while !stopped.value {
      var peer = sockaddr_storage()
      var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
      let n = withUnsafeMutablePointer(to: &peer) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          recvfrom(fd, &buffer, buffer.count, 0, $0, &length)
        }
      }
      guard n > 0 else { continue }
      let text = String(decoding: buffer[0..<n], as: UTF8.self)
      log.withLock { $0.append(text) }
      for answer in script(text) {
        let bytes = Array((answer + "\n").utf8)
        _ = withUnsafePointer(to: &peer) {
          $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            sendto(fd, bytes, bytes.count, 0, $0, length)
          }
        }
      }
    }
  }
}
