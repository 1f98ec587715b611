import SwitchboardFuzzSupport
import SwitchboardHTTP

// libFuzzer target for ServerSentEventReader (docs/TESTING.md, "Fuzzing"), the reader
// `switchboard top` reads /admin/events with. Properties, for every input: pieces read as
// the whole does; no event passes the limit; no type holds a line end and no data a CR; and
// the events read, written back as `event:`/`data:` lines (LF, CRLF or CR ends, as the first
// byte picks), read back to themselves.

/// Small limits, so that short inputs reach them.
let limits = ServerSentEventReader.Limits(maxLineBytes: 64, maxEventBytes: 128)

/// The events `chunks` read to, and the error that stopped the reader (if any).
func read(_ chunks: [[UInt8]], limits: ServerSentEventReader.Limits) -> (
  events: [ServerSentEvent], error: ServerSentEventError?
) {
  let (events, error) = Fuzz.decodeAll(
    chunks, with: ServerSentEventReader(limits: limits), append: { $0.append($1) },
    next: { (reader: inout ServerSentEventReader) throws(ServerSentEventError) in try reader.next() })
  return (events, error)
}

/// `events` as a stream would carry them, each line ended by `end`.
func written(_ events: [ServerSentEvent], end: String) -> [UInt8] {
  var text = ""
  for event in events {
    if event.type != "message" { text += "event: " + event.type + end }
    for line in event.data.split(separator: "\n", omittingEmptySubsequences: false) {
      text += "data: " + line + end
    }
    text += end
  }
  return Array(text.utf8)
}

func check(_ bytes: [UInt8]) {
  let whole = read([bytes], limits: limits)
  let cut = read(Fuzz.pieces(bytes, seed: bytes.first ?? 0), limits: limits)
  Fuzz.require(whole.events == cut.events && whole.error == cut.error, "pieces read differently")
  for event in whole.events {
    // The limit counts bytes as received: a byte that is not UTF-8 reads as U+FFFD (three
    // bytes), so the text may be longer in UTF-8, never in scalars.
    Fuzz.require(event.data.unicodeScalars.count <= limits.maxEventBytes, "an event over the limit")
    Fuzz.require(!event.type.utf8.contains { $0 == 0x0A || $0 == 0x0D }, "a line end in the type")
    Fuzz.require(!event.data.utf8.contains(0x0D), "a CR in the data")
  }
  // Types and data read from bytes may hold replacement characters; written and read
  // again they stay as they are. A type that is empty reads as `message` again.
  let end = ["\n", "\r\n", "\r"][Int(bytes.last ?? 0) % 3]
  let events = whole.events.map {
    ServerSentEvent(type: $0.type.isEmpty ? "message" : $0.type, data: $0.data)
  }
  let again = read([written(events, end: end)], limits: .init())
  Fuzz.require(again.error == nil, "written events did not read: \(String(describing: again.error))")
  Fuzz.require(again.events.map(\.type) == events.map(\.type), "types changed: \(events) vs \(again.events)")
  Fuzz.require(again.events.map(\.data) == events.map(\.data), "data changed: \(events) vs \(again.events)")
}

#if FUZZ_SSE
  @_cdecl("LLVMFuzzerTestOneInput")
  public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 { Fuzz.one(data, size, check) }
#else
  @main enum Replay { static func main() { Fuzz.replay(check) } }
#endif
