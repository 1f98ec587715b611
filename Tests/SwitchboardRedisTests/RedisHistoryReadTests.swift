import Dispatch
import SwitchboardChat
import SwitchboardTestSupport
import SwitchboardWire
import Testing

@testable import SwitchboardRedis

/// A history read from Redis (a line member's `/since` when this node's ring does not reach
/// back far enough) costs one replay slice, not the room's whole kept history.
@Suite(.onTestThreads, .enabled(ifAvailable: RedisServer.isInstalled, "redis-server is not installed"))
struct RedisHistoryReadTests {
  @Test func aHistoryReadStopsAfterItsByteBudget() async throws {
    let server = try RedisServer()
    let node = try BrokerNode(server)
    defer { node.stop() }
    let writer = try node.join("writer", room: "big")
    let text = String(repeating: "\u{01}", count: 64 << 10)
    let stored = DispatchSemaphore(value: 0)
    for _ in 0..<40 { node.publish(writer, text) { _ in stored.signal() } }
    for _ in 0..<40 { #expect(stored.wait(timeout: .now() + 15) == .success) }
    let answer = Locked<Result<[ChatMessage], BrokerError>?>(nil)
    let done = DispatchSemaphore(value: 0)
    node.broker.history(room: "big", after: 0, limit: 1000, on: QueueExecutor(queue: node.queue)) { result in
      answer.withLock { $0 = result }
      done.signal()
    }
    #expect(done.wait(timeout: .now() + 15) == .success)
    let messages = try #require(try answer.value?.get())
    // 512 KiB of 64 KiB bodies (and a little more each), and the one that crosses it: 8.
    let budget = RedisBrokerConfiguration(redis: .test(server.url())).historyReadBytes
    #expect(messages.count <= budget / (64 << 10) + 1 && messages.count < 40, "\(messages.count) messages read")
    #expect(messages.map(\.id) == Array(1...UInt64(messages.count)))
  }
}
