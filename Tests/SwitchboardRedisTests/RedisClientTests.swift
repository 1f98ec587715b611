import Foundation
import SwitchboardIO
import SwitchboardRESP
import SwitchboardRedis
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The client against a real `redis-server`: both protocol versions, pipelining, login,
/// databases, scripts, server errors, limits, and where completions run.
@Suite(.onTestThreads, .enabled(ifAvailable: RedisServer.isInstalled, "redis-server is not installed"))
struct RedisClientTests {
  @Test(arguments: [RedisConfiguration.ProtocolVersion.resp3, .resp2])
  func commandsRunInBothProtocolVersions(version: RedisConfiguration.ProtocolVersion) async throws {
    let server = try RedisServer()
    try await withLoop { loop in
      let client = try await RedisClient.connect(
        configuration: .test(server.url(), protocolVersion: version), on: loop)
      defer { client.close() }
      #expect(client.state == .ready(protocolVersion: version == .resp3 ? 3 : 2))
      #expect(try await client.send(RESPCommand("SET", "greeting", "hello")) == .simpleString("OK"))
      #expect(try await client.send(RESPCommand("GET", "greeting")).string == "hello")
      #expect(try await client.send(RESPCommand("GET", "missing")).isNull)
      #expect(try await client.send(RESPCommand("INCRBY", "n", "41")) == .integer(41))
      _ = try await client.send(RESPCommand("HSET", "h", "a", "1"))
      let hash = try await client.send(RESPCommand("HGETALL", "h"))
      if version == .resp3 {
        #expect(
          hash == .map([RESPPair(key: .bulkString(Array("a".utf8)), value: .bulkString(Array("1".utf8)))]))
        #expect(try await client.send(RESPCommand("EXISTS", "h")) == .integer(1))
      } else {
        #expect(hash == .array([.bulkString(Array("a".utf8)), .bulkString(Array("1".utf8))]))
      }
      // Binary-safe both ways.
      let blob = pattern(count: 100_000, seed: 5)
      _ = try await client.send(RESPCommand(bytes: [Array("SET".utf8), Array("blob".utf8), blob]))
      #expect(try await client.send(RESPCommand("GET", "blob")).bytes == blob)
    }
  }

  @Test func helloRefusedFallsBackToRESP2() async throws {
    // `HELLO` renamed away: the server answers it as Redis 5 would, `unknown command`.
    let server = try RedisServer(RedisServer.Options(password: "pw", disabledCommands: ["HELLO"]))
    try await withLoop { loop in
      let client = try await RedisClient.connect(configuration: .test(server.url(password: "pw")), on: loop)
      defer { client.close() }
      #expect(client.state == .ready(protocolVersion: 2))
      #expect(try await client.send(RESPCommand("PING")) == .simpleString("PONG"))
      let statistics = await client.statistics()
      #expect(statistics.resp2Fallbacks == 1)
    }
  }

  @Test func tenThousandPipelinedCommandsGetTheirRepliesInOrder() async throws {
    let server = try RedisServer()
    try await withLoop { loop in
      let client = try await RedisClient.connect(configuration: .test(server.url()), on: loop)
      defer { client.close() }
      // From the loop: all 10,000 are written in one iteration, then the replies stream back.
      let replies = Locked<[Int64]>([])
      let done = Signal()
      loop.execute {
        for _ in 0..<10_000 {
          client.send(RESPCommand("INCR", "counter")) { result in
            let value = (try? result.get())?.integer ?? -1
            let count = replies.withLock { list -> Int in
              list.append(value)
              return list.count
            }
            if count == 10_000 { done.fire() }
          }
        }
      }
      #expect(done.wait(timeout: .seconds(30)))
      #expect(replies.value == (1...10_000).map { Int64($0) })
      // And through the async pipeline: one write, results in order.
      let commands = (0..<10_000).map { RESPCommand("SET", "k\($0)", "v\($0)") } + [RESPCommand("DBSIZE")]
      let results = await client.pipeline(commands)
      #expect(results.count == 10_001)
      #expect(results.dropLast().allSatisfy { (try? $0.get()) == .simpleString("OK") })
      #expect(try results.last?.get() == .integer(10_001))  // "counter" and k0…k9999
      let statistics = await client.statistics()
      #expect(statistics.connects == 1 && statistics.losses == 0)
    }
  }

  @Test func passwordOnlyAndACLUserLogins() async throws {
    let server = try RedisServer(
      RedisServer.Options(
        password: "default-pw", users: [["alice", "on", ">wonderland", "~*", "&*", "+@all"]]))
    try await withLoop { loop in
      for version in [RedisConfiguration.ProtocolVersion.resp3, .resp2] {
        let byPassword = try await RedisClient.connect(
          configuration: .test(server.url(password: "default-pw"), protocolVersion: version), on: loop)
        #expect(try await byPassword.send(RESPCommand("ACL", "WHOAMI")).string == "default")
        byPassword.close()
        let alice = try await RedisClient.connect(
          configuration: .test(server.url(user: "alice", password: "wonderland"), protocolVersion: version),
          on: loop)
        #expect(try await alice.send(RESPCommand("ACL", "WHOAMI")).string == "alice")
        alice.close()
        let error = await #expect(throws: RedisError.self) {
          _ = try await RedisClient.connect(
            configuration: .test(server.url(user: "alice", password: "wrong"), protocolVersion: version),
            on: loop)
        }
        #expect(error?.kind == .connectFailed && error?.prefix == "WRONGPASS", "\(String(describing: error))")
      }
      // No password at all: commands are refused with NOAUTH.
      let anonymous = try await RedisClient.connect(
        configuration: .test(server.url(), protocolVersion: .resp2), on: loop)
      defer { anonymous.close() }
      let refused = await #expect(throws: RedisError.self) {
        _ = try await anonymous.send(RESPCommand("GET", "x"))
      }
      #expect(refused?.kind == .server && refused?.prefix == "NOAUTH")
    }
  }

  @Test func theURLsDatabaseIsSelected() async throws {
    let server = try RedisServer()
    try await withLoop { loop in
      let three = try await RedisClient.connect(configuration: .test(server.url(database: 3)), on: loop)
      defer { three.close() }
      _ = try await three.send(RESPCommand("SET", "where", "db3"))
      let info = try await three.send(RESPCommand("CLIENT", "INFO")).string ?? ""
      #expect(info.contains(" db=3 "), "\(info)")
      let zero = try await RedisClient.connect(configuration: .test(server.url()), on: loop)
      defer { zero.close() }
      #expect(try await zero.send(RESPCommand("GET", "where")).isNull)
    }
  }

  @Test func evalshaFallsBackToEvalWhenTheServerForgotTheScript() async throws {
    let server = try RedisServer()
    try await withLoop { loop in
      let client = try await RedisClient.connect(configuration: .test(server.url()), on: loop)
      defer { client.close() }
      let script = RedisScript("return redis.call('INCRBY', KEYS[1], ARGV[1])")
      #expect(script.sha1.count == 40)
      #expect(try await client.eval(script, keys: ["s"], arguments: ["2"]) == .integer(2))  // EVAL: first use
      #expect(try await client.eval(script, keys: ["s"], arguments: ["3"]) == .integer(5))  // EVALSHA
      let loaded = try await client.send(RESPCommand("SCRIPT", "EXISTS", script.sha1))
      #expect(loaded == .array([.integer(1)]))
      _ = try await client.send(RESPCommand("SCRIPT", "FLUSH"))
      #expect(try await client.eval(script, keys: ["s"], arguments: ["4"]) == .integer(9))  // NOSCRIPT → EVAL
      #expect(try await client.eval(script, keys: ["s"], arguments: ["1"]) == .integer(10))
      let statistics = await client.statistics()
      #expect(statistics.noscriptFallbacks == 1)
      // A script error is a server error with Redis's prefix.
      let broken = RedisScript("return redis.call('NOPE')")
      let error = await #expect(throws: RedisError.self) { _ = try await client.eval(broken) }
      #expect(error?.kind == .server && error?.prefix == "ERR")
    }
  }

  @Test func serverErrorsCarryTheirPrefix() async throws {
    let server = try RedisServer()
    try await withLoop { loop in
      let client = try await RedisClient.connect(configuration: .test(server.url()), on: loop)
      defer { client.close() }
      _ = try await client.send(RESPCommand("SET", "s", "x"))
      let wrongType = await #expect(throws: RedisError.self) {
        _ = try await client.send(RESPCommand("LPUSH", "s", "y"))
      }
      #expect(wrongType?.kind == .server && wrongType?.prefix == "WRONGTYPE")
      let noScript = await #expect(throws: RedisError.self) {
        _ = try await client.send(RESPCommand("EVALSHA", String(repeating: "0", count: 40), "0"))
      }
      #expect(noScript?.prefix == "NOSCRIPT")
      // Subscribing belongs on a RedisSubscriber: it would change how the server answers.
      let subscribe = await #expect(throws: RedisError.self) {
        _ = try await client.send(RESPCommand("subscribe", "c"))
      }
      #expect(subscribe?.kind == .unsupported)
      // The connection is fine afterwards.
      #expect(try await client.send(RESPCommand("GET", "s")).string == "x")
    }
  }

  @Test func aServerUnreachableAtStartIsAnError() async throws {
    let nobody = try RefusingPort()
    let port = nobody.port
    try await withLoop { loop in
      let error = await #expect(throws: RedisError.self) {
        _ = try await RedisClient.connect(
          configuration: .test(RedisURL(host: "127.0.0.1", port: port)), on: loop)
      }
      #expect(error?.kind == .connectFailed, "\(String(describing: error))")
    }
  }

  @Test func theClientReconnectsAfterTheServerRestarts() async throws {
    let server = try RedisServer()
    let states = Locked<[RedisConnectionState]>([])
    try await withLoop { loop in
      let client = try await RedisClient.connect(
        configuration: .test(server.url()), on: loop,
        stateHandler: { state in states.withLock { $0.append(state) } })
      defer { client.close() }
      _ = try await client.send(RESPCommand("SET", "before", "1"))
      server.kill()
      try await eventually("the client noticed") {
        if case .backingOff = client.state { return true }
        return false
      }
      // The loss, or by now a reconnect attempt refused while the server is down.
      #expect([RedisError.Kind.connectionLost, .connectFailed].contains(client.lastError?.kind))
      try server.restart()
      try await eventually("reconnected") { client.state.isReady }
      // A fresh server (no persistence): the old key is gone, new commands work.
      #expect(try await client.send(RESPCommand("GET", "before")).isNull)
      #expect(try await client.send(RESPCommand("INCR", "after")) == .integer(1))
      let statistics = await client.statistics()
      #expect(statistics.connects == 2 && statistics.losses == 1)
      let seen = states.value
      #expect(seen.contains { if case .backingOff = $0 { true } else { false } })
      #expect(seen.filter(\.isReady).count == 2)
    }
  }

  @Test func aCommandSentAgainFromAFailedCompletionGoesToTheNextConnection() async throws {
    let server = try RedisServer()
    try await withLoop { loop in
      let client = try await RedisClient.connect(
        configuration: .test(server.url(), commandTimeout: .seconds(30)), on: loop)
      defer { client.close() }
      let retried = Locked<Result<RESPValue, RedisError>?>(nil)
      let lost = Locked<RedisError?>(nil)
      loop.execute {
        // Blocks on the server until the connection goes away.
        client.send(RESPCommand("BLPOP", "nothing", "0")) { result in
          if case .failure(let error) = result { lost.withLock { $0 = error } }
          client.send(RESPCommand("INCR", "retried")) { again in retried.withLock { $0 = again } }
        }
      }
      let observer = try await RedisClient.connect(configuration: .test(server.url()), on: loop)
      try await untilSuccess {
        let info = try await observer.send(RESPCommand("INFO", "clients")).string ?? ""
        guard info.contains("blocked_clients:1") else { throw TestFailure("not blocked yet") }
      }
      observer.close()
      server.kill()
      try await eventually("the blocked command failed") { lost.value != nil }
      #expect(lost.value?.kind == .connectionLost)
      try server.restart()
      try await eventually("the retried command completed") { retried.value != nil }
      #expect(try retried.value?.get() == .integer(1))
      // Replies are still matched to their commands.
      #expect(try await client.send(RESPCommand("PING")) == .simpleString("PONG"))
      #expect(try await client.send(RESPCommand("GET", "retried")).string == "1")
    }
  }

  @Test func commandsAskedForWhileDisconnectedWaitForTheNextConnection() async throws {
    let server = try RedisServer()
    try await withLoop { loop in
      let client = try await RedisClient.connect(configuration: .test(server.url()), on: loop)
      defer { client.close() }
      server.kill()
      try await eventually("the client noticed") { !client.state.isReady }
      let reply = Task { try await client.send(RESPCommand("PING")) }
      try server.restart()
      #expect(try await reply.value == .simpleString("PONG"))
    }
  }

  @Test func aPausedServerTimesCommandsOutAndTheClientRecoversAfterItResumes() async throws {
    let server = try RedisServer()
    try await withLoop { loop in
      let client = try await RedisClient.connect(
        configuration: .test(server.url(), commandTimeout: .milliseconds(300)), on: loop)
      defer { client.close() }
      _ = try await client.send(RESPCommand("SET", "k", "v"))
      server.signal(SIGSTOP)
      defer { server.signal(SIGCONT) }
      let started = ContinuousClock.now
      let error = await #expect(throws: RedisError.self) {
        _ = try await client.send(RESPCommand("GET", "k"))
      }
      #expect(error?.kind == .timeout, "\(String(describing: error))")
      #expect(ContinuousClock.now - started < .seconds(5))
      let statistics = await client.statistics()
      #expect(statistics.timeouts >= 1)
      server.signal(SIGCONT)
      #expect(
        try await untilSuccess(timeout: .seconds(20)) { try await client.send(RESPCommand("GET", "k")) }
          .string == "v")
    }
  }

  @Test func aReplyOverTheDecoderLimitFailsAndTheClientReconnects() async throws {
    let server = try RedisServer()
    try await withLoop { loop in
      var configuration = RedisConfiguration.test(server.url())
      configuration.limits = RESPLimits(maxBulkLength: 1024)
      let client = try await RedisClient.connect(configuration: configuration, on: loop)
      defer { client.close() }
      _ = try await client.send(RESPCommand("SET", "big", String(repeating: "x", count: 2048)))
      let error = await #expect(throws: RedisError.self) {
        _ = try await client.send(RESPCommand("GET", "big"))
      }
      #expect(error?.kind == .limit && error?.decodingError == .bulkTooLarge, "\(String(describing: error))")
      #expect(try await client.send(RESPCommand("STRLEN", "big")) == .integer(2048))
    }
  }

  @Test func completionsRunOnTheLoopTheCallerNames() async throws {
    let server = try RedisServer()
    try await withLoop { loop in
      let other = try EventLoop(index: 1)
      defer { other.shutdownGracefully() }
      let client = try await RedisClient.connect(configuration: .test(server.url()), on: loop)
      defer { client.close() }
      let onOther = Locked<Bool?>(nil)
      let done = Signal()
      client.send(RESPCommand("PING"), completeOn: other) { result in
        onOther.withLock { $0 = other.inEventLoop && (try? result.get()) == .simpleString("PONG") }
        done.fire()
      }
      #expect(done.wait(timeout: .seconds(10)))
      #expect(onOther.value == true)
      // On the client's own loop, the loop-bound API completes inline on that loop.
      let onOwn = try onLoop(loop) { loop.inEventLoop }
      #expect(onOwn)
    }
  }

  @Test func closingFailsWhatIsPendingWithClosed() async throws {
    let server = try RedisServer()
    try await withLoop { loop in
      let client = try await RedisClient.connect(configuration: .test(server.url()), on: loop)
      server.signal(SIGSTOP)
      defer { server.signal(SIGCONT) }
      let reply = Task { try await client.send(RESPCommand("PING")) }
      // Whether the command reaches the loop before the close or after, it fails as closed.
      client.close()
      let error = await #expect(throws: RedisError.self) { _ = try await reply.value }
      #expect(error?.kind == .closed)
      #expect(client.state == .closed)
      let after = await #expect(throws: RedisError.self) { _ = try await client.send(RESPCommand("PING")) }
      #expect(after?.kind == .closed)
    }
  }
}
