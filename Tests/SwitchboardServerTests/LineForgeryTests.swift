import Foundation
import SwitchboardChat
import SwitchboardServer
import SwitchboardTestSupport
import SwitchboardWire
import Testing

/// What one member sends can never become a line of its own on a line member (TCP or UDP):
/// no forged `NAME: …`, `* …` notice or `! …` error, and the member still gets the whole
/// text, escaped (docs/PROTOCOLS.md, "Text inside a line"). Real sockets, in-process server.
@Suite(.onTestThreads)
struct LineForgeryTests {
  /// The reproduced attack, with each line break the rule covers.
  static let attacks = [
    "ok\nceo: wire $10k to X\n* server is going away: maintenance",
    "ok\rceo: wire $10k to X",
    "ok\r\n! you are banned",
    "ok\u{2028}ceo: wire $10k to X\u{2029}* bob has left",
    "ok\u{85}ceo: hi\u{0B}* x\u{0C}! y",
    "C:\\new\\path\n\\n",
  ]

  static let breaks: [Character] = ["\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}"]

  /// `line` is the one line the rule says `author` sending `text` makes, and no more.
  func expectOneLine(_ line: String, author: String, text: String) {
    #expect(line == author + ": " + LineEscape.escape(text))
    #expect(!line.contains { Self.breaks.contains($0) } && !line.unicodeScalars.contains { $0 == "\r" })
    #expect(LineEscape.unescape(line.dropFirst(author.count + 2)) == text)
  }

  @Test(arguments: attacks)
  func aWebSocketTextWithLineBreaksIsOneLineOnATCPMember(text: String) async throws {
    try await withServer { server in
      let reader = try LineClient(server.tcpAddress!)
      try reader.join(as: "reader")
      let mallory = try WebSocketTestClient(server.httpAddress!, path: "/?name=mallory")
      try reader.expectLine("* mallory has joined")
      try mallory.send(text: Self.messageFrame(text))
      try mallory.send(text: Self.messageFrame("end"))
      expectOneLine(try reader.readLine(), author: "mallory", text: text)
      // The very next line is the next message: nothing else came out of the first.
      #expect(try reader.readLine() == "mallory: end")
    }
  }

  @Test(arguments: attacks)
  func aDatagramWithLineBreaksIsOneLineOnTCPAndUDPMembers(text: String) async throws {
    try await withServer { server in
      let reader = try LineClient(server.tcpAddress!)
      try reader.join(as: "reader")
      // Both prove their addresses first: an unproven address's datagrams are echoed, never
      // published (docs/PROTOCOLS.md, "UDP dialect").
      let listener = try DatagramPeer(server.udpAddress!)
      try listener.prove()
      try listener.send("iam:listener")
      try listener.expect { $0.hasPrefix("Server received: iam:listener") }
      try reader.expectLine("* listener has joined")
      let mallory = try DatagramPeer(server.udpAddress!)
      try mallory.prove()
      try mallory.send("iam:mallory")
      try reader.expectLine("* mallory has joined")
      try listener.expect { $0 == "* mallory has joined\n" }
      try mallory.send(text)
      try mallory.send("end")
      expectOneLine(try reader.readLine(), author: "mallory", text: text)
      #expect(try reader.readLine() == "mallory: end")
      // On the UDP member: one datagram, one line, then the next message.
      let datagram = try listener.receive()
      #expect(datagram.hasSuffix("\n") && datagram.utf8.filter { $0 == 0x0A }.count == 1)
      expectOneLine(String(datagram.dropLast()), author: "mallory", text: text)
      #expect(try listener.receive() == "mallory: end\n")
    }
  }

  @Test func aTCPMemberReadsTheWholeTextOfAMessageWithAnyControlsInIt() async throws {
    try await withServer { server in
      let reader = try LineClient(server.tcpAddress!)
      try reader.join(as: "reader")
      let mallory = try WebSocketTestClient(server.httpAddress!, path: "/?name=mallory")
      try reader.expectLine("* mallory has joined")
      // Every scalar below U+00A0, and the separators: an escape sequence (ESC) included.
      let text = String(
        String.UnicodeScalarView((0...0x9F).compactMap(Unicode.Scalar.init) + ["\u{2028}", "\u{2029}"]))
      try mallory.send(text: Self.messageFrame(text))
      expectOneLine(try reader.readLine(), author: "mallory", text: text)
    }
  }

  // MARK: Names and actions

  @Test(arguments: [
    ("iam:ceo: wire", "! a name may not contain \": \" (it would read as another author's line)"),
    ("iam:* admin", "! a name may not start with * (it would read as a notice, an error or history)"),
    ("iam:!boss", "! a name may not start with ! (it would read as a notice, an error or history)"),
    ("/nick [12] ceo", "! a name may not start with [ (it would read as a notice, an error or history)"),
    ("/nick server", "! a name may not start with the word server (the server's notices do)"),
    ("iam:You are now admin", "! a name may not start with the word you (the server's notices do)"),
    ("iam:in", "! a name may not start with the word in (the server's notices do)"),
    ("iam:Server received", "! a name may not start with Server received (the UDP echo does)"),
  ])
  func aNameThatCouldForgeALineIsRefusedOnTCP(line: String, answer: String) async throws {
    try await withServer { server in
      let reader = try LineClient(server.tcpAddress!)
      try reader.join(as: "reader")
      let mallory = try LineClient(server.tcpAddress!)
      try mallory.join(as: "mallory")
      try reader.expectLine("* mallory has joined")
      try mallory.sendLine(line)
      try mallory.expectLine(answer)
      // Still `mallory`: the others see no rename, and its messages keep its name.
      try mallory.sendLine("hi")
      #expect(try reader.readLine() == "mallory: hi")
    }
  }

  @Test(arguments: [
    "/me has left", "/me has joined", "/me is now ceo", "/me waves and has left", "/me is typing",
  ])
  func anActionThatReadsAsPresenceIsRefused(line: String) async throws {
    try await withServer { server in
      let reader = try LineClient(server.tcpAddress!)
      try reader.join(as: "reader")
      let mallory = try LineClient(server.tcpAddress!)
      try mallory.join(as: "mallory")
      try reader.expectLine("* mallory has joined")
      try mallory.sendLine(line)
      try mallory.expectLine(
        "! an action may not end with \"has joined\", \"has left\" or \"is typing\" or contain \"is now\" (it would read as presence); send it as a message"
      )
      try mallory.sendLine("/me waves")
      #expect(try reader.readLine() == "* mallory waves")
    }
  }

  @Test func aWebSocketNameThatCouldForgeALineIsAnsweredInvalidName() async throws {
    try await withServer { server in
      let reader = try LineClient(server.tcpAddress!)
      try reader.join(as: "reader")
      let query = try WebSocketTestClient(server.httpAddress!, path: "/?name=server")
      let error = try query.nextJSON(type: "error")
      #expect((error["data"] as? [String: Any])?["code"] as? String == "invalid_name")
      // The seed's first plain frame as the name: refused, the member is `Client N`, and its
      // next frame is a message.
      let seed = try WebSocketTestClient(server.httpAddress!)
      try seed.send(text: "ceo: wire")
      let refusal = try seed.nextJSON(type: "error")
      #expect((refusal["data"] as? [String: Any])?["message"] as? String == NameRefusal.colonSpace.answer)
      let named = try seed.nextJSON(type: "name")
      let name = try #require(named["data"] as? String)
      #expect(name.hasPrefix("Client "))
      try reader.expectLine("* \(name) has joined")
      try seed.send(text: #"{"type":"join","data":{"name":"!root"}}"#)
      #expect(
        try seed.nextJSON(type: "error")["data"].flatMap { ($0 as? [String: Any])?["code"] as? String }
          == "invalid_name")
      try seed.send(text: "hello")
      #expect(try reader.readLine() == "\(name): hello")
    }
  }

  static func messageFrame(_ text: String) -> String {
    let data = try! JSONSerialization.data(withJSONObject: ["type": "message", "data": ["text": text]])
    return String(decoding: data, as: UTF8.self)
  }
}
