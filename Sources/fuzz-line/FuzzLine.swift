import SwitchboardFuzzSupport
import SwitchboardWire

// libFuzzer target for LineFramer and the line dialect's commands (docs/TESTING.md,
// "Fuzzing"). The first byte picks the line limit; the rest is the TCP byte stream.
// Properties: no line passes the limit or holds a newline, a discarded line reports the
// limit, and what a pause flushes (`takePartial`) is within the limit too; pieces frame as
// the whole does; every line parses to a command that keeps its rules (a valid room, a
// non-negative count, a trimmed argument); and the commands written back parse to
// themselves (`msg:TEXT`, `/join ROOM`, `//text`). And the rule that text never becomes
// structure (docs/PROTOCOLS.md, "Text inside a line"): the whole stream as one member's text
// (what a WebSocket or UDP member may send, breaks and all), from a name made of its first
// line, yields exactly one line per event, none of them a notice, an error or another
// author's, and name and text read back exactly (`LineDialect.ruleBreach`).

/// The framer's outputs for `chunks`, then what a pause flushes.
func frame(_ chunks: [[UInt8]], maxLineLength: Int) -> (outputs: [LineFramer.Output], partial: [UInt8]?) {
  var framer = LineFramer(maxLineLength: maxLineLength)
  var outputs: [LineFramer.Output] = []
  for chunk in chunks {
    framer.append(contentsOf: chunk)
    while let output = framer.next() { outputs.append(output) }
  }
  return (outputs, framer.takePartial())
}

func check(_ bytes: [UInt8]) {
  var input = FuzzBytes(bytes)
  let options = input.byte()
  let maxLineLength = [0, 1, 2, 16, 100, 1000][Int(options) % 6]
  let stream = input.rest()
  let whole = frame([stream], maxLineLength: maxLineLength)
  let cut = frame(Fuzz.pieces(stream, seed: options), maxLineLength: maxLineLength)
  Fuzz.require(cut.outputs == whole.outputs && cut.partial == whole.partial, "pieces framed differently")
  var lines = whole.partial.map { [$0] } ?? []
  for output in whole.outputs {
    switch output {
    case .line(let line): lines.append(line)
    case .tooLong(let limit): Fuzz.require(limit == maxLineLength, "reported limit \(limit)")
    }
  }
  for line in lines {
    Fuzz.require(line.count <= maxLineLength, "line of \(line.count) bytes, limit \(maxLineLength)")
    Fuzz.require(!line.contains(0x0A), "newline inside a line")
    checkCommand(LineDialect.decode(line))
  }
  let text = LineDialect.decode(stream)
  checkLineRule(name: String(text.prefix { $0 != "\n" }), text: text)
}

/// `raw` as a name the hub admits (and two plain ones), sending `text`: the lines are the
/// rule's.
func checkLineRule(name raw: String, text: String) {
  for author in [raw, "bob", "Client 7"] {
    guard let name = LineDialect.cleanName(author, maxLength: 64), LineDialect.nameRefusal(name) == nil else { continue }
    if let breach = LineDialect.ruleBreach(author: name, text: text) { Fuzz.require(false, breach) }
  }
}

func checkCommand(_ text: String) {
  let isTrimmed = { (s: String) in
    s.first.map { $0 != " " && $0 != "\t" } ?? false && s.last.map { $0 != " " && $0 != "\t" } ?? false
  }
  switch LineCommand.parse(text) {
  case .join(let room): Fuzz.require(RoomName.validate(room) == room, "joined the invalid room \(room)")
  case .history(let count?): Fuzz.require(count >= 0, "history \(count)")
  case .nick(let name): Fuzz.require(isTrimmed(name), "nick '\(name)'")
  case .me(let action): Fuzz.require(isTrimmed(action), "me '\(action)'")
  default: break
  }
  let blank = text.allSatisfy { $0 == " " || $0 == "\t" }
  Fuzz.require(LineCommand.parse("msg:" + text) == (blank ? .empty : .message(text)), "msg: does not round-trip")
  Fuzz.require(
    LineCommand.parse("emsg:" + LineEscape.escape(text)) == (blank ? .empty : .message(text)),
    "emsg: does not round-trip")
  Fuzz.require(LineCommand.parse("//" + text) == .message("/" + text), "// does not round-trip")
  if let room = RoomName.validate(text) {
    Fuzz.require(LineCommand.parse("/join " + room) == .join(room), "/join \(room) does not round-trip")
  }
}

#if FUZZ_LINE
  @_cdecl("LLVMFuzzerTestOneInput")
  public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 { Fuzz.one(data, size, check) }
#else
  @main enum Replay { static func main() { Fuzz.replay(check) } }
#endif
