import SwitchboardRedis
import SwitchboardTestSupport
import SwitchboardWire
import Testing

/// The broker's payload codec: round trips, room-name encoding, malformed input refused,
/// and random and mutated bytes never crash it.
@Suite(.onTestThreads)
struct RedisBrokerPayloadTests {
  @Test func payloadsRoundTrip() throws {
    let messages = [
      ChatMessage(
        id: 7, room: "lobby", time: 1_700_000_000_123, author: "ann", color: "red", text: "hi there"),
      ChatMessage(id: 1, room: "lobby", time: -5, author: "b o b", color: "", text: "", isAction: true),
      ChatMessage(id: 99, room: "lobby", time: 0, author: "zoë", color: "plum", text: "line\nbreak 🎉 "),
    ]
    for message in messages {
      let bytes = RedisBrokerPayload.payload(
        id: message.id, epoch: "00ab", ref: "node:3", body: RedisBrokerPayload.body(message))
      let decoded = try RedisBrokerPayload.decodePayload(bytes, room: "lobby")
      #expect(decoded.message == message)
      #expect(decoded.epoch == "00ab" && decoded.ref == "node:3")
    }
  }

  @Test func malformedPayloadsAreRefused() {
    let bad = [
      "", "sb2 1 e r 0 0 0 0 ", "sb1 0 e r 0 0 0 0 ", "sb1 x e r 0 0 0 0 ", "sb1 1 e r 0 2 0 0 ",
      "sb1 1 e r 0 0 9 0 ab", "sb1 1 e r 0 0 2000 0 ", "sb1 1 e", "sb1 1  r 0 0 0 0 ",
    ]
    for text in bad {
      #expect(throws: RedisBrokerPayload.DecodingError.self, "\(text)") {
        try RedisBrokerPayload.decodePayload(Array(text.utf8), room: "r")
      }
    }
  }

  @Test func randomAndMutatedBytesNeverCrash() {
    var random = SeededGenerator(seed: 13)
    let valid = RedisBrokerPayload.payload(
      id: 12, epoch: "e", ref: "n:1",
      body: RedisBrokerPayload.body(
        ChatMessage(id: 0, room: "r", time: 5, author: "a", color: "c", text: "t")))
    var decoded = 0
    for round in 0..<20_000 {
      var bytes: [UInt8]
      if round % 2 == 0 {
        bytes = (0..<Int.random(in: 0..<40, using: &random)).map { _ in
          "sb1 0123456789-:ab".utf8.randomElement(using: &random)!
        }
      } else {
        bytes = valid
        for _ in 0..<Int.random(in: 1...4, using: &random) {
          bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
        }
      }
      if (try? RedisBrokerPayload.decodePayload(bytes, room: "r")) != nil { decoded += 1 }
    }
    #expect(decoded > 0)
  }

  static let presenceEvents = [
    PresenceEvent(kind: .join, author: "ann", room: "lobby", members: 3, color: "red"),
    PresenceEvent(kind: .leave, author: "b o b", room: "lobby", members: 0, color: ""),
    PresenceEvent(
      kind: .rename(from: "zoë 🎉"), author: "zoe", room: "lobby", members: 4_000_000, color: "plum"),
  ]

  @Test(arguments: presenceEvents) func presenceAnnouncementsRoundTrip(_ event: PresenceEvent) throws {
    let bytes = RedisBrokerPayload.presence(event, node: "0123abcd")
    #expect(RedisBrokerPayload.isPresence(bytes))
    let decoded = try RedisBrokerPayload.decodePresence(bytes, room: "lobby")
    #expect(decoded.event == event)
    #expect(decoded.node == "0123abcd")
    // A message payload is not an announcement, and the other way round.
    #expect(!RedisBrokerPayload.isPresence(Array("sb1 1 e r 0 0 0 0 ".utf8)))
    #expect(throws: RedisBrokerPayload.DecodingError.self) {
      try RedisBrokerPayload.decodePayload(bytes, room: "lobby")
    }
  }

  @Test func malformedPresenceAnnouncementsAreRefused() {
    let bad = [
      "", "sb1p", "sb1p 1 join n 1 0 0 ", "sb1p 1 join n 1 0 0 ab", "sb1p 1 jump n 1 0 0 a",
      "sb1p 1 rename n 1 0 0 a", "sb1p 1 join n 1 0 1 ab", "sb1p 1 join n 0 0 0 ", "sb1p -1 join n 1 0 0 a",
      "sb1p 99999999999 join n 1 0 0 a", "sb1p 1 join n 2000 0 0 a", "sb1p 1 join  1 0 0 a",
      "sb1q 1 join n 1 0 0 a", "sb1p 1 leave n 1 0 0 a ",
    ]
    for text in bad {
      #expect(throws: RedisBrokerPayload.DecodingError.self, "\(text)") {
        try RedisBrokerPayload.decodePresence(Array(text.utf8), room: "r")
      }
    }
    #expect(throws: RedisBrokerPayload.DecodingError.self) {
      let long = RedisBrokerPayload.presence(Self.presenceEvents[0], node: "n")
      _ = try RedisBrokerPayload.decodePresence(long, room: "r", limits: .init(maxBodyBytes: 10))
    }
  }

  @Test func randomAndMutatedAnnouncementsNeverCrash() {
    var random = SeededGenerator(seed: 29)
    let valid = RedisBrokerPayload.presence(Self.presenceEvents[2], node: "node")
    var decoded = 0
    for round in 0..<20_000 {
      var bytes: [UInt8]
      if round % 2 == 0 {
        let tail = (0..<Int.random(in: 0..<40, using: &random)).map { _ in
          "0123456789 joinleavrenm-ab".utf8.randomElement(using: &random)!
        }
        bytes = Array("sb1p ".utf8) + tail
      } else {
        bytes = valid
        for _ in 0..<Int.random(in: 1...4, using: &random) {
          bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
        }
      }
      if let (event, _) = try? RedisBrokerPayload.decodePresence(bytes, room: "r") {
        decoded += 1
        #expect(!event.author.isEmpty)
      }
    }
    #expect(decoded > 0)
  }

  @Test func roomNamesAreEncodedInsideOneHashTag() {
    #expect(RedisRoomKeys(room: "lobby").meta == "sb:{lobby}:meta")
    #expect(RedisRoomKeys(room: "a}b{c").channel == "sb:{a%7Db%7Bc}:ch")
    #expect(RedisRoomKeys(room: "café 1").log == "sb:{caf%C3%A9%201}:log")
    #expect(RedisRoomKeys(room: "x%41").tag != RedisRoomKeys(room: "xA").tag)
  }

  /// A presence set entry carries the member's transport and join time, and an entry of the
  /// earlier form (`<node>|<id>|<name>`) still reads, with neither; the name stays after the
  /// second `|`, where the expiry script and earlier nodes read it.
  @Test func presenceEntriesCarryTransportAndTimeAndReadTheEarlierForm() {
    let entry = RedisPresenceEntry(node: "n1", member: "7", transport: "ws", since: 1_765_130_000_000, name: "a|b")
    #expect(entry.encoded == "n1|7:ws:1765130000000|a|b")
    #expect(RedisPresenceEntry.decode(entry.encoded.utf8) == entry)
    let old = RedisPresenceEntry.decode("n1|7|alice".utf8)
    #expect(old == RedisPresenceEntry(node: "n1", member: "7", name: "alice"))
    #expect(old?.encoded == "n1|7|alice")
    // A member field of neither form is kept whole, as the earlier form.
    #expect(
      RedisPresenceEntry.decode("n1|7:WS:1|x".utf8)
        == RedisPresenceEntry(node: "n1", member: "7:WS:1", name: "x"))
    #expect(RedisPresenceEntry.decode("n1|7:ws:|x".utf8)?.transport == nil)
    for bad in ["", "n1", "n1|7", "|7|x", "n1||x", "n1|7|", String(repeating: "n", count: 200) + "|7|x"] {
      #expect(RedisPresenceEntry.decode(bad.utf8) == nil, "\(bad)")
    }
  }
}
