import Foundation
import SwitchboardIO
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// Socket calls the test clients share. Servers under test listen on port 0 (the kernel
// picks); only a child process whose port 0 means "off" (the CLI) gets ports probed free.

/// Connects the blocking socket `fd` to `address`; 0 or the errno. A blocking `connect`
/// returns `EINTR` when a signal arrives while it waits (a child process of another suite
/// exiting, say) although the connection goes on in the kernel: this waits for it (up to
/// `timeout`) and returns its outcome instead.
public func blockingConnect(_ fd: Int32, to address: SocketAddress, timeout: Duration = .seconds(5)) -> Int32
{
  #if canImport(Glibc)
    let rc = address.withSockAddr { sa, len in Glibc.connect(fd, sa, len) }
  #else
    let rc = address.withSockAddr { sa, len in Darwin.connect(fd, sa, len) }
  #endif
  if rc == 0 { return 0 }
  let err = errno
  guard err == EINTR else { return err }
  var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
  let waitMs = Int32(clamping: timeout.components.seconds * 1000)
  var polled: Int32
  repeat { polled = poll(&pfd, 1, waitMs) } while polled < 0 && errno == EINTR
  guard polled == 1 else { return ETIMEDOUT }
  var soError: Int32 = 0
  var len = socklen_t(MemoryLayout<Int32>.size)
  getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &len)
  return soError
}

/// `count` different ports on 127.0.0.1, free for TCP and UDP a moment ago, for a child
/// process whose port 0 means "off" (the CLI). They are picked at random below the
/// kernel's ephemeral range (`net.ipv4.ip_local_port_range`), from which it takes the
/// ports of every port-0 bind and every outgoing connection: with a thousand client
/// connections in the run, a port from that range that was free when probed is soon
/// somebody's. A port is handed out once per test process: two tests that probed the same
/// free port at the same moment would race to bind it (CI saw "Address already in use").
public func freePorts(_ count: Int) throws -> [Int] {
  let ephemeral = ephemeralPorts()
  let candidates =
    ephemeral.lowerBound > 12_000 ? 10_000...(ephemeral.lowerBound - 1) : (ephemeral.upperBound + 1)...65_535
  var held: [Int32] = []
  defer { for fd in held { close(fd) } }
  var ports: [Int] = []
  for _ in 0..<1000 where ports.count < count {
    let port = Int.random(in: candidates)
    guard !ports.contains(port), !handedOutPorts.withLock({ $0.contains(port) }) else { continue }
    let tcp = try boundSocket(Posix.streamType, port: port)
    let udp = try boundSocket(Posix.datagramType, port: port)
    held += [tcp, udp].filter { $0 >= 0 }
    if tcp >= 0 && udp >= 0 { ports.append(port) }
  }
  guard ports.count == count else { throw TestFailure("found only \(ports.count) of \(count) free ports") }
  handedOutPorts.withLock { $0.formUnion(ports) }
  return ports
}

/// The ports ``freePorts(_:)`` handed out in this process.
private let handedOutPorts = Mutex<Set<Int>>([])

/// A socket bound to 127.0.0.1:`port`, or -1 when that port is taken.
private func boundSocket(_ type: Int32, port: Int) throws -> Int32 {
  let fd = Posix.makeSocket(family: AF_INET, type: type)
  guard fd >= 0 else { throw TestFailure("socket: errno \(errno)") }
  let address = try SocketAddress(host: "127.0.0.1", port: port)
  guard address.withSockAddr({ sa, len in bind(fd, sa, len) }) == 0 else {
    close(fd)
    return -1
  }
  return fd
}

/// The kernel's ephemeral port range (32768…60999 where it cannot be read; Darwin's is
/// 49152…65535 unless changed with sysctl).
private func ephemeralPorts() -> ClosedRange<Int> {
  #if os(Linux)
    let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
  #else
    let text = "49152 65535"
  #endif
  let bounds = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Int($0) }
  guard bounds.count == 2, bounds[0] <= bounds[1] else { return 32_768...60_999 }
  return bounds[0]...bounds[1]
}
