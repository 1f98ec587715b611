import SwitchboardRedis
import SwitchboardTestSupport
import Testing

/// The connection's state machine allows exactly the documented transitions.
@Suite(.onTestThreads) struct RedisConnectionStateTests {
  @Test func theDocumentedPathsAreAllowed() {
    let connecting = RedisConnectionState.connecting(attempt: 1)
    let handshaking = RedisConnectionState.handshaking(attempt: 1)
    let ready = RedisConnectionState.ready(protocolVersion: 3)
    let backingOff = RedisConnectionState.backingOff(attempt: 2, delay: .milliseconds(50))
    #expect(RedisConnectionState.idle.allows(connecting))
    #expect(connecting.allows(handshaking) && handshaking.allows(ready))
    #expect(connecting.allows(backingOff) && handshaking.allows(backingOff) && ready.allows(backingOff))
    #expect(backingOff.allows(.connecting(attempt: 2)))
    for state in [connecting, handshaking, ready, backingOff] { #expect(state.allows(.closed)) }
  }

  @Test func everythingElseIsRefused() {
    let ready = RedisConnectionState.ready(protocolVersion: 2)
    #expect(!ready.allows(.connecting(attempt: 1)))
    #expect(!ready.allows(.handshaking(attempt: 1)))
    #expect(!RedisConnectionState.connecting(attempt: 1).allows(ready))
    #expect(!RedisConnectionState.backingOff(attempt: 1, delay: .zero).allows(ready))
    #expect(!RedisConnectionState.closed.allows(.connecting(attempt: 1)))
    #expect(!RedisConnectionState.closed.allows(.closed))
    #expect(!RedisConnectionState.idle.allows(ready))
  }
}
