import SwitchboardTestSupport
import Foundation
import SwitchboardLog
import Testing

@Suite(.onTestThreads) struct LogFormatTests {
  private let time = LogTimestamp(seconds: 1_746_091_832, nanoseconds: 123_456_789)

  private func record(
    _ message: String = "accepted", metadata: Log.Metadata = [:], label: String = "switchboard"
  ) -> LogRecord {
    LogRecord(time: time, level: .info, label: label, message: message, metadata: metadata)
  }

  // MARK: Text

  @Test func textIsTimeLevelLabelMessageThenSortedMetadata() {
    let line = LogFormat.text.line(for: record(metadata: ["peer": "127.0.0.1:50712", "conn": "7"]))
    #expect(line == "2025-05-01T09:30:32.123Z info switchboard: accepted conn=7 peer=127.0.0.1:50712")
  }

  @Test func textWithoutMetadataIsTodaysLine() {
    #expect(
      LogFormat.text.line(for: record("stopped")) == "2025-05-01T09:30:32.123Z info switchboard: stopped")
    #expect(
      LogFormat.text.line(for: record("stopped", label: "")) == "2025-05-01T09:30:32.123Z info: stopped")
  }

  @Test func textQuotesValuesThatWouldReadAmbiguously() {
    let line = LogFormat.text.line(
      for: record(
        metadata: [
          "a": "two words", "b": "", "c": "x=y", "d": "say \"hi\"", "e": "back\\slash", "f": "line\nbreak",
          "g": "plain-value_1.2:3", "h": "héllo",
        ]))
    #expect(
      line == "2025-05-01T09:30:32.123Z info switchboard: accepted a=\"two words\" b=\"\" c=\"x=y\" "
        + "d=\"say \\\"hi\\\"\" e=\"back\\\\slash\" f=\"line\\nbreak\" g=plain-value_1.2:3 h=héllo")
  }

  @Test func textKeepsOneRecordOnOneLine() {
    let line = LogFormat.text.line(for: record("first\nsecond\r\u{1B}[31m \"quoted\""))
    #expect(line == "2025-05-01T09:30:32.123Z info switchboard: first\\nsecond\\r\\u001b[31m \"quoted\"")
    #expect(!line.contains("\n"))
  }

  // MARK: JSON

  private func parse(_ line: String) throws -> [String: String] {
    let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
    return try #require(object as? [String: String])
  }

  @Test func jsonHasTheFixedFieldsFirstThenSortedMetadata() throws {
    let line = LogFormat.json.line(for: record(metadata: ["peer": "127.0.0.1:50712", "conn": "7"]))
    #expect(
      line == #"{"ts":"2025-05-01T09:30:32.123Z","level":"info","label":"switchboard","msg":"accepted","#
        + #""conn":"7","peer":"127.0.0.1:50712"}"#)
    #expect(
      try parse(line) == [
        "ts": "2025-05-01T09:30:32.123Z", "level": "info", "label": "switchboard", "msg": "accepted",
        "conn": "7", "peer": "127.0.0.1:50712",
      ])
  }

  static let awkwardStrings = [
    "quote \" and backslash \\ and slash /",
    "newline\n return\r tab\t backspace\u{08} formfeed\u{0C}",
    "nul \u{00} bell \u{07} escape \u{1B} unit separator \u{1F} delete \u{7F}",
    "non-ASCII: é ß 中文 🙂 e\u{301} \u{2028} \u{FEFF}",
    "",
    "{\"looks\":\"like json\"}",
  ]

  @Test(arguments: awkwardStrings)
  func jsonEscapesEveryStringSoItParsesBackUnchanged(text: String) throws {
    let line = LogFormat.json.line(for: record(text, metadata: [text: text, "v": text], label: text))
    #expect(!line.contains("\n") && !line.contains("\r"))
    #expect(!line.utf8.contains { $0 < 0x20 || $0 == 0x7F })
    let object = try parse(line)
    #expect(object["msg"] == text)
    #expect(object["label"] == text)
    #expect(object["v"] == text)
    #expect(object[text] == text)
  }

  @Test func jsonWritesControlCharactersWithTheShortEscapesWhereThereAreSome() {
    let line = LogFormat.json.line(for: record("\n\r\t\u{08}\u{0C}\u{01}\u{7F}\"\\é"))
    #expect(line.contains(#""msg":"\n\r\t\b\f\u0001\u007f\"\\é""#))
  }

  @Test func metadataNamedLikeAFixedFieldGetsAnUnderscore() throws {
    let line = LogFormat.json.line(
      for: record(metadata: ["msg": "m", "ts": "t", "level": "l", "label": "b", "other": "o"]))
    let object = try parse(line)
    #expect(object["msg"] == "accepted")
    #expect(object["level"] == "info")
    #expect(
      object["_msg"] == "m" && object["_ts"] == "t" && object["_level"] == "l" && object["_label"] == "b")
    #expect(object["other"] == "o")
  }

  @Test func formatNamesParse() {
    #expect(LogFormat(name: "json") == .json)
    #expect(LogFormat(name: "TEXT") == .text)
    #expect(LogFormat(name: "xml") == nil)
  }

  // MARK: Timestamps

  @Test(arguments: [
    (Int64(0), Int32(0), "1970-01-01T00:00:00.000Z"),
    (951_782_400, 999_999_999, "2000-02-29T00:00:00.999Z"),
    (1_709_251_199, 1_000_000, "2024-02-29T23:59:59.001Z"),
    (1_735_689_599, 500_000_000, "2024-12-31T23:59:59.500Z"),
    (4_102_444_800, 0, "2100-01-01T00:00:00.000Z"),
    (-1, 0, "1969-12-31T23:59:59.000Z"),
  ])
  func timestampsAreRFC3339InUTC(seconds: Int64, nanoseconds: Int32, expected: String) {
    #expect(LogTimestamp(seconds: seconds, nanoseconds: nanoseconds).rfc3339 == expected)
  }

  @Test func timestampsAgreeWithFoundation() {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    var seconds: Int64 = 0
    while seconds < 5_000_000_000 {
      let stamp = LogTimestamp(seconds: seconds, nanoseconds: 250_000_000)
      #expect(stamp.rfc3339 == formatter.string(from: Date(timeIntervalSince1970: Double(seconds) + 0.25)))
      seconds += 86_400 * 37 + 3_601
    }
  }

  @Test func nanosecondsOutOfRangeCarryIntoSeconds() {
    #expect(
      LogTimestamp(seconds: 10, nanoseconds: 1_500_000_000)
        == LogTimestamp(seconds: 11, nanoseconds: 500_000_000))
    #expect(LogTimestamp(seconds: 10, nanoseconds: -1) == LogTimestamp(seconds: 9, nanoseconds: 999_999_999))
  }
}
