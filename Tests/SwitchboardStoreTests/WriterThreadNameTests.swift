import SwitchboardStore
import SwitchboardTestSupport
import Testing

@Suite(.onTestThreads) struct WriterThreadNameTests {
  #if os(Linux)
    @Test func writerThreadCarriesItsName() throws {
      try withTemporaryDirectory { dir in
        let store = try SQLiteHistoryStore(directory: dir)
        defer { store.close() }
        // The thread names itself as it starts, maybe after the store's init returned.
        #expect(eventually { threadNames().contains("sb-store-writer") })
      }
    }
  #endif
}
