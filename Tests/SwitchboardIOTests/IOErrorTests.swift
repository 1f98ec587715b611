import Testing

@testable import SwitchboardIO
import SwitchboardTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `IOError.kind`: what callers match on instead of call names and errno numbers.
@Suite(.onTestThreads) struct IOErrorTests {
  @Test(arguments: [
    (ECONNRESET, IOError.Kind.reset), (EPIPE, .reset), (ECONNABORTED, .reset), (ETIMEDOUT, .timedOut),
    (ECONNREFUSED, .refused), (EADDRINUSE, .addressInUse), (ENOSYS, .unsupported), (EACCES, .system),
    (EINVAL, .system), (0, .other),
  ])
  func theKindFollowsFromErrno(errno: Int32, kind: IOError.Kind) {
    #expect(IOError.Kind(errno: errno) == kind)
    #expect(IOError(call: "send", errno: errno).kind == kind)
  }

  @Test func connectionResetCoversThePeerVanishingAndOnlyThat() {
    for errno in [ECONNRESET, EPIPE, ECONNABORTED, ETIMEDOUT] {
      #expect(IOError(call: "send", errno: errno).isConnectionReset)
    }
    for errno in [ECONNREFUSED, EADDRINUSE, EINVAL, 0] {
      #expect(!IOError(call: "send", errno: errno).isConnectionReset)
    }
    #expect(!IOError.slowConsumer(limit: 10).isConnectionReset)
  }

  @Test func aSlowConsumerIsItsOwnKindAndSaysWhatHappened() {
    let error = IOError.slowConsumer(limit: 4096)
    #expect(error.kind == .slowConsumer)
    #expect(error.errno == 0)
    #expect(error.call == "slow consumer")
    #expect(error.description == "slow consumer (more than 4096 bytes unread): connection reset")
    #expect(error != IOError(call: "slow consumer", errno: 0, detail: error.detail), "a lookalike is not one")
  }

  @Test func theDescriptionNamesTheCallTheDetailAndTheSystemsReason() {
    let error = IOError(call: "bind", errno: EADDRINUSE, detail: "127.0.0.1:80")
    #expect(error.description == "bind 127.0.0.1:80 failed: " + String(cString: strerror(EADDRINUSE)))
    #expect(IOError(call: "read", errno: 0).description == "read failed")
  }
}
