import Testing

@testable import SwitchboardIO
import SwitchboardTestSupport

/// The event loop's descriptor-indexed registrations, without a loop.
@Suite(.onTestThreads) struct DescriptorTableTests {
  final class Handler: Selectable {
    func handle(_ events: ReadyEvents) {}
  }

  @Test func registrationsAreFoundByDescriptorAndForgotten() {
    var table = DescriptorTable()
    let a = Handler(), b = Handler()
    table.insert(a, fd: 3, interest: .read)
    table.insert(b, fd: 700, interest: [.read, .write])  // past the first growth
    #expect(table.count == 2)
    #expect(table.handler(3) === a)
    #expect(table.handler(700) === b)
    #expect(table.handler(4) == nil)
    #expect(table.handler(100_000) == nil)
    #expect(table.handler(-1) == nil)
    #expect(table.interest(700) == [.read, .write])
    #expect(table.interest(4) == nil)
    table.setInterest(.write, fd: 3)
    #expect(table.interest(3) == .write)
    #expect(table.descriptors == [3, 700])

    table.remove(fd: 3)
    table.remove(fd: 3)  // a second removal changes nothing
    table.remove(fd: 5)  // nor does one of a number never registered
    #expect(table.count == 1)
    #expect(table.handler(3) == nil)
    #expect(table.interest(3) == nil)
    table.setInterest(.read, fd: 3)  // not registered: ignored
    #expect(table.interest(3) == nil)
    #expect(table.descriptors == [700])
  }

  @Test func aReusedDescriptorNumberGetsTheNewHandler() {
    var table = DescriptorTable()
    let old = Handler(), new = Handler()
    table.insert(old, fd: 9, interest: .read)
    table.remove(fd: 9)
    table.insert(new, fd: 9, interest: .write)
    #expect(table.count == 1)
    #expect(table.handler(9) === new)
    #expect(table.interest(9) == .write)
    // Replacing a live registration does not count it twice.
    table.insert(old, fd: 9, interest: .read)
    #expect(table.count == 1)
    #expect(table.handler(9) === old)
  }
}
