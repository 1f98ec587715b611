import SwitchboardChat
import Testing

/// `StoreError`'s kinds: equal whatever the message, kept when a caller rewords one.
@Suite(.onTestThreads)
struct StoreErrorTests {
  @Test func kindsCompareWhateverTheMessage() {
    #expect(StoreError.cannotOpen("cannot open history at /x: locked") == .cannotOpen)
    #expect(StoreError.writeFailed("disk full") != .readFailed)
    #expect(StoreError("anything") == .failed)
    #expect(StoreError("history store is closed") != .closed)
    let advised = StoreError.cannotOpen("cannot open history at /x").with(message: "cannot open history at /x (use --ephemeral)")
    #expect(advised == .cannotOpen)
    #expect(advised.message == "cannot open history at /x (use --ephemeral)")
    #expect(advised.description == advised.message)
  }
}
