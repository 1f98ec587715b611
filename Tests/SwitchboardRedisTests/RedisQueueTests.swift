import SwitchboardTestSupport
import Testing

@testable import SwitchboardRedis

/// The in-flight queue: order kept through pops, compaction and removals.
@Suite(.onTestThreads) struct RedisQueueTests {
  @Test func elementsComeOutInOrderAcrossCompactions() {
    var queue = RedisQueue<Int>()
    var next = 0
    var expected = 0
    var random = SeededGenerator(seed: 11)
    for _ in 0..<200 {
      for _ in 0..<Int.random(in: 0...3000, using: &random) {
        queue.append(next)
        next += 1
      }
      for _ in 0..<Int.random(in: 0...3000, using: &random) {
        guard let value = queue.popFirst() else { break }
        #expect(value == expected)
        expected += 1
      }
      #expect(queue.count == next - expected)
    }
    #expect(queue.removeAll() == Array(expected..<next))
    #expect(queue.isEmpty && queue.first == nil)
  }

  @Test func removingSomeKeepsTheOthersInOrder() {
    var queue = RedisQueue<Int>()
    for n in 0..<10 { queue.append(n) }
    _ = queue.popFirst()
    #expect(queue.removeAll(where: { $0 % 3 == 0 }) == [3, 6, 9])
    #expect(queue.removeAll(where: { $0 > 100 }) == [])
    #expect(queue.removeAll() == [1, 2, 4, 5, 7, 8])
  }
}
