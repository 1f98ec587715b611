import SwitchboardIO
import Testing
import SwitchboardTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite(.onTestThreads)
struct EventLoopGroupTests {
  @Test(arguments: SelectorBackend.available)
  func nextHandsOutLoopsRoundRobin(backend: SelectorBackend) throws {
    let group = try EventLoopGroup(count: 3, backend: backend)
    defer { group.shutdownGracefully() }
    #expect(group.loops.map(\.index) == [0, 1, 2])
    let first = group.next()
    let start = group.loops.firstIndex { $0 === first }!
    for step in 1..<9 {
      #expect(group.next() === group.loops[(start + step) % 3])
    }
  }

  @Test(arguments: SelectorBackend.available)
  func loopsRunOnDistinctThreads(backend: SelectorBackend) throws {
    let group = try EventLoopGroup(count: 3, backend: backend)
    defer { group.shutdownGracefully() }
    var threads: Set<UInt> = []
    for loop in group.loops {
      let (thread, selfCheck, others) = try onLoop(loop) {
        (UInt(pthread_self()), loop.inEventLoop, group.loops.filter { $0 !== loop }.map(\.inEventLoop))
      }
      #expect(selfCheck)
      #expect(others == [false, false])
      threads.insert(thread)
    }
    #expect(threads.count == 3)
    #expect(!threads.contains(UInt(pthread_self())))
  }
}
