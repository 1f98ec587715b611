import SwitchboardIO
import SwitchboardRESP
import SwitchboardRedis
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The pub/sub connection against a real `redis-server`: channel, pattern and shard
/// subscriptions under RESP3 (push frames) and RESP2 (arrays), unsubscribing, `PING`, and
/// re-subscribing after the server restarts.
@Suite(.onTestThreads, .enabled(ifAvailable: RedisServer.isInstalled, "redis-server is not installed"))
struct RedisSubscriberTests {
  @Test(arguments: [RedisConfiguration.ProtocolVersion.resp3, .resp2])
  func messagesArriveForChannelsPatternsAndShards(version: RedisConfiguration.ProtocolVersion) async throws {
    let server = try RedisServer()
    let received = Locked<[RedisPubSubMessage]>([])
    try await withLoop { loop in
      let configuration = RedisConfiguration.test(server.url(), protocolVersion: version)
      let subscriber = try await RedisSubscriber.connect(configuration: configuration, on: loop) { message in
        received.withLock { $0.append(message) }
      }
      defer { subscriber.close() }
      let publisher = try await RedisClient.connect(configuration: configuration, on: loop)
      defer { publisher.close() }
      try await subscriber.subscribe(["room:{lobby}", "room:{other}"])
      try await subscriber.psubscribe(["news.*"])
      try await subscriber.ssubscribe(["shard:{a}"])
      try await subscriber.ping()

      #expect(try await publisher.send(RESPCommand("PUBLISH", "room:{lobby}", "hello")) == .integer(1))
      #expect(try await publisher.send(RESPCommand("PUBLISH", "news.sport", "goal")) == .integer(1))
      #expect(try await publisher.send(RESPCommand("SPUBLISH", "shard:{a}", "sharded")) == .integer(1))
      let binary: [UInt8] = [0, 13, 10, 255]
      _ = try await publisher.send(
        RESPCommand(bytes: [Array("PUBLISH".utf8), Array("room:{other}".utf8), binary]))
      try await eventually("four messages") { received.value.count == 4 }
      #expect(
        received.value == [
          RedisPubSubMessage(kind: .channel, channel: "room:{lobby}", payload: Array("hello".utf8)),
          RedisPubSubMessage(
            kind: .pattern, channel: "news.sport", pattern: "news.*", payload: Array("goal".utf8)),
          RedisPubSubMessage(kind: .shard, channel: "shard:{a}", payload: Array("sharded".utf8)),
          RedisPubSubMessage(kind: .channel, channel: "room:{other}", payload: binary),
        ])

      try await subscriber.unsubscribe(["room:{lobby}"])
      try await subscriber.punsubscribe(["news.*"])
      #expect(try await publisher.send(RESPCommand("PUBLISH", "room:{lobby}", "nobody")) == .integer(0))
      #expect(try await publisher.send(RESPCommand("PUBLISH", "news.x", "nobody")) == .integer(0))
      #expect(try await publisher.send(RESPCommand("PUBLISH", "room:{other}", "still")) == .integer(1))
      try await eventually("the fifth message") { received.value.count == 5 }
      #expect(received.value.last?.payload == Array("still".utf8))
      try await subscriber.ping()
    }
  }

  @Test func manyMessagesArriveInPublishOrder() async throws {
    let server = try RedisServer()
    let received = Locked<[String]>([])
    try await withLoop { loop in
      let subscriber = try await RedisSubscriber.connect(configuration: .test(server.url()), on: loop) {
        message in
        received.withLock { $0.append(String(decoding: message.payload, as: UTF8.self)) }
      }
      defer { subscriber.close() }
      try await subscriber.subscribe(["burst"])
      let publisher = try await RedisClient.connect(configuration: .test(server.url()), on: loop)
      defer { publisher.close() }
      let results = await publisher.pipeline((0..<5000).map { RESPCommand("PUBLISH", "burst", "\($0)") })
      #expect(results.allSatisfy { (try? $0.get()) == .integer(1) })
      try await eventually("5,000 messages") { received.value.count == 5000 }
      #expect(received.value == (0..<5000).map { "\($0)" })
    }
  }

  @Test(arguments: [RedisConfiguration.ProtocolVersion.resp3, .resp2])
  func subscriptionsAreMadeAgainAfterTheServerRestarts(version: RedisConfiguration.ProtocolVersion)
    async throws
  {
    let server = try RedisServer()
    let received = Locked<[String]>([])
    let readyCount = Locked(0)
    try await withLoop { loop in
      let configuration = RedisConfiguration.test(server.url(), protocolVersion: version)
      let subscriber = try await RedisSubscriber.connect(
        configuration: configuration, on: loop,
        stateHandler: { state in if state.isReady { readyCount.withLock { $0 += 1 } } },
        handler: { message in
          received.withLock { $0.append(String(decoding: message.payload, as: UTF8.self)) }
        })
      defer { subscriber.close() }
      try await subscriber.subscribe(["a"])
      try await subscriber.psubscribe(["p.*"])
      try server.restart()
      try await eventually("ready again") { readyCount.value == 2 && subscriber.state.isReady }
      let publisher = try await RedisClient.connect(configuration: configuration, on: loop)
      defer { publisher.close() }
      #expect(try await publisher.send(RESPCommand("PUBLISH", "a", "one")) == .integer(1))
      #expect(try await publisher.send(RESPCommand("PUBLISH", "p.q", "two")) == .integer(1))
      try await eventually("both messages") { received.value.count == 2 }
      #expect(received.value == ["one", "two"])
      let statistics = await subscriber.statistics()
      #expect(statistics.connects == 2)
    }
  }

  @Test func aSubscriptionAskedForWhileDisconnectedIsMadeOnReconnect() async throws {
    let server = try RedisServer()
    let received = Locked<[String]>([])
    try await withLoop { loop in
      let subscriber = try await RedisSubscriber.connect(configuration: .test(server.url()), on: loop) {
        message in
        received.withLock { $0.append(message.channel) }
      }
      defer { subscriber.close() }
      server.kill()
      try await eventually("the subscriber noticed") { !subscriber.state.isReady }
      async let subscribed: Void = subscriber.subscribe(["late"])
      try server.restart()
      try await subscribed
      let publisher = try await RedisClient.connect(configuration: .test(server.url()), on: loop)
      defer { publisher.close() }
      #expect(try await publisher.send(RESPCommand("PUBLISH", "late", "x")) == .integer(1))
      try await eventually("the message") { received.value == ["late"] }
    }
  }
}
