import SwitchboardIO
import Testing

@testable import SwitchboardServer

/// The send budgets of unproven UDP addresses, driven by a made-up clock.
@Suite(.onTestThreads)
struct UnprovenSourcesTests {
  private let second: UInt64 = 1_000_000_000

  private func address(_ n: Int) -> SocketAddress { try! SocketAddress(host: "192.0.2.1", port: 1000 + n) }

  @Test func anAddressMaySpendThreeTimesWhatItSent() {
    var table = UnprovenSources()
    var spent = table.spend(1, on: address(0))
    #expect(!spent)  // nothing received: nothing to send
    table.received(10, from: address(0), now: 0)
    spent = table.spend(25, on: address(0))
    #expect(spent)
    spent = table.spend(6, on: address(0))
    #expect(!spent)
    spent = table.spend(5, on: address(0))
    #expect(spent)
    table.received(2, from: address(0), now: 0)
    #expect(table.budget(of: address(0)) == 6)
    #expect(table.budget(of: address(1)) == 0)
  }

  @Test func unaskedOffersAreSpacedAndCountOnlyWhenSent() {
    var table = UnprovenSources()
    table.received(100, from: address(0), now: 0)
    #expect(table.offerDue(to: address(0), now: 0))
    let spent = table.spend(35, on: address(0), offerAt: 0)
    #expect(spent)
    #expect(!table.offerDue(to: address(0), now: second / 2))
    #expect(table.offerDue(to: address(0), now: second))
    #expect(!table.offerDue(to: address(1), now: 0))  // unknown: nothing is due
  }

  @Test func theTableIsBoundedAndForgetsQuietAddresses() {
    var table = UnprovenSources(maxSources: 4, expiry: .seconds(30))
    for n in 0..<4 { table.received(10, from: address(n), now: 0) }
    #expect(table.count == 4)
    // Full and nothing expired: it starts over (forgetting is always safe).
    table.received(10, from: address(4), now: second)
    #expect(table.count == 1)
    #expect(table.budget(of: address(0)) == 0)
    table.received(10, from: address(5), now: 20 * second)
    table.sweep(now: 40 * second)
    #expect(table.count == 1 && table.budget(of: address(5)) == 30)
    table.forget(address(5))
    #expect(table.count == 0)
  }
}
