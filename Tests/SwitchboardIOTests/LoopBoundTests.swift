import SwitchboardIO
import SwitchboardTestSupport
import Testing

@Suite(.onTestThreads) struct LoopBoundTests {
  final class Counter {
    var count = 0
  }

  @Test func valueIsReachableOnItsLoopFromAnyHolder() throws {
    let loop = try EventLoop()
    defer { loop.shutdownGracefully() }
    // Made off the loop: the counter is handed over whole.
    let box = LoopBound(sending: Counter(), on: loop)
    let copies = [box, box]
    for holder in copies {
      try onLoop(loop) { holder.value.count += 1 }
    }
    #expect(try onLoop(loop) { box.value.count } == 2)

    // Made on the loop, replaced there.
    let number = try onLoop(loop) { LoopBound(1, on: loop) }
    try onLoop(loop) { number.value += 1 }
    #expect(try onLoop(loop) { number.value } == 2)
  }
}
