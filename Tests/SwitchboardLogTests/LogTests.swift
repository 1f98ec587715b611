import SwitchboardTestSupport
import SwitchboardLog
import Synchronization
import Testing

@Suite(.onTestThreads) struct LogTests {
  private func logger(level: Log.Level = .info, metadata: Log.Metadata = [:]) -> (Log, MemoryLogSink) {
    let sink = MemoryLogSink()
    return (Log(label: "test", level: level, metadata: metadata, sink: sink), sink)
  }

  @Test func linesBelowTheLevelAreDroppedWithoutBuildingThem() {
    let (log, sink) = logger(level: .notice)
    let built = Atomic<Int>(0)
    func message(_ text: String) -> String {
      built.add(1, ordering: .relaxed)
      return text
    }
    func metadata() -> Log.Metadata {
      built.add(1, ordering: .relaxed)
      return ["k": "v"]
    }
    log.trace(message("t"), metadata: metadata())
    log.debug(message("d"), metadata: metadata())
    log.info(message("i"), metadata: metadata())
    #expect(built.load(ordering: .relaxed) == 0)
    log.notice(message("n"), metadata: metadata())
    log.warning(message("w"))
    log.error(message("e"))
    log.critical(message("c"))
    #expect(built.load(ordering: .relaxed) == 5)
    #expect(sink.records.map(\.message) == ["n", "w", "e", "c"])
    #expect(sink.records.map(\.level) == [.notice, .warning, .error, .critical])
  }

  @Test(arguments: Log.Level.allCases)
  func everyLevelWritesItselfAndWhatIsMoreSevere(level: Log.Level) {
    let (log, sink) = logger(level: level)
    for candidate in Log.Level.allCases { log.log(level: candidate, candidate.name) }
    #expect(sink.records.map(\.level) == Log.Level.allCases.filter { $0 >= level })
    #expect(log.isEnabled(level))
    #expect(Log.Level.allCases.filter { log.isEnabled($0) }.first == level)
  }

  @Test func levelNamesParseInAnyCase() {
    #expect(Log.Level.allCases.allSatisfy { Log.Level(name: $0.name) == $0 })
    #expect(Log.Level(name: "WARN") == .warning)
    #expect(Log.Level(name: "Debug") == .debug)
    #expect(Log.Level(name: "verbose") == nil)
    #expect(
      Log.Level.allCases.map(\.name) == ["trace", "debug", "info", "notice", "warning", "error", "critical"])
  }

  @Test func callMetadataOverridesChildMetadataWhichOverridesTheParents() {
    let (root, sink) = logger(metadata: ["a": "root", "b": "root", "c": "root"])
    let child = root.child(metadata: ["b": "child", "c": "child"])
    child.info("x", metadata: ["c": "call", "d": "call"])
    root.info("y")
    #expect(sink.records[0].metadata == ["a": "root", "b": "child", "c": "call", "d": "call"])
    #expect(sink.records[1].metadata == ["a": "root", "b": "root", "c": "root"])
  }

  @Test func aChildCanTakeAnotherLabelAndKeepsTheLevelAndSink() {
    let (root, sink) = logger(level: .debug)
    let store = root.child(label: "test.store")
    store.debug("opened")
    root.child(metadata: ["k": "v"]).debug("same label")
    #expect(sink.records.map(\.label) == ["test.store", "test"])
  }

  @Test func theMetadataSubscriptSetsAndRemovesAKey() {
    var (log, sink) = logger()
    log[metadataKey: "conn"] = "7"
    #expect(log[metadataKey: "conn"] == "7")
    log.info("with")
    log[metadataKey: "conn"] = nil
    log.info("without")
    #expect(sink.records.map(\.metadata) == [["conn": "7"], [:]])
  }

  @Test func theDisabledLoggerWritesNothing() {
    let log = Log.disabled
    #expect(!log.isEnabled(.error))
    log.error("nobody hears this")
  }

  @Test func recordsCarryTheCurrentTime() {
    let (log, sink) = logger()
    let before = LogTimestamp.now()
    log.info("now")
    let after = LogTimestamp.now()
    let time = try! #require(sink.records.first?.time)
    #expect(before <= time && time <= after)
  }
}
