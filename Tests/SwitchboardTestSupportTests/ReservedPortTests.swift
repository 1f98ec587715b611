import Foundation
import SwitchboardIO
import Testing

@testable import SwitchboardTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Ports for programs that cannot bind a kernel-chosen one: none a port-0 bind could get,
/// none handed out twice while reserved, here or in another process, none another program
/// holds.
@Suite(.onTestThreads) struct ReservedPortTests {
  @Test func portsLieOutsideTheEphemeralRangeAndAreNeverHandedOutTwice() throws {
    let ephemeral = ephemeralPorts()
    let ports = try ReservedPort.reserve(40).map(\.port)
    #expect(Set(ports).count == 40)
    #expect(ports.allSatisfy { !ephemeral.contains($0) && ReservedPort.range.contains($0) })
    // A port the kernel chose for a port-0 bind is in the ephemeral range, so never one of these.
    let refusing = try RefusingPort()
    #expect(ephemeral.contains(refusing.port))
  }

  @Test(.enabled(ifAvailable: Executables.tool("flock") != nil, "needs flock(1)"))
  func anotherProcessCannotHaveAPortWhileItIsReserved() throws {
    var reserved: ReservedPort? = try ReservedPort.reserve()
    let file = try #require(ReservedPort.lockFile(reserved!.port))
    let held = try ChildProcess(Executables.tool("flock")!, ["--nonblock", file, "true"])
    #expect(try held.waitForExit() == 1, "flock(1) got the lock of a reserved port")
    reserved = nil
    let released = try ChildProcess(Executables.tool("flock")!, ["--nonblock", file, "true"])
    #expect(try released.waitForExit() == 0, "the lock outlived its reservation")
  }

  @Test func aPortAnotherProgramHoldsIsSkipped() throws {
    let port = try ReservedPort.reserve().port  // released at once: free, and no TIME_WAIT
    let fd = Posix.makeSocket(family: AF_INET, type: Posix.streamType)
    let address = try SocketAddress(host: "127.0.0.1", port: port)
    try #require(address.withSockAddr { sa, len in bind(fd, sa, len) } == 0)
    #expect(ReservedPort.claim(port) == nil)
    close(fd)
    #expect(ReservedPort.claim(port)?.port == port)
  }
}
