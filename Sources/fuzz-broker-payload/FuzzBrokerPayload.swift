import SwitchboardFuzzSupport
import SwitchboardRedis
import SwitchboardWire

// libFuzzer target for the Redis broker's payload decoders (`RedisBrokerPayload`): the bytes
// a node reads back from Redis, which any client of that Redis can write. Every input goes
// through all five decoders — a channel payload (`sb1 …`), a presence announcement
// (`sb1p …`), a disconnect order (`sb1p N disconnect …`), a presence set entry
// (`<node>|<member>|<name>`) and a bare stream body — and each must decode or refuse (never
// crash, never hang). What decodes must obey the limits, and must encode again (with the
// broker's own encoders) to bytes that decode to the same value: a structure-aware round trip.
//
// Compiled with -DFUZZ_BROKER_PAYLOAD next to --sanitize=fuzzer (scripts/fuzz broker-payload),
// it is a libFuzzer target. Without the flag — a plain `swift build` — it is a small program
// that replays input files through the same check.

/// Small limits, so that the fuzzer reaches each of them with short inputs.
let fuzzLimits = RedisBrokerPayload.Limits(maxBodyBytes: 2048, maxNameBytes: 32, maxTokenBytes: 16)
/// For decoding what was encoded again: invalid UTF-8 in the input comes back as U+FFFD
/// (three bytes for one), so a re-encoded field may be longer than the input's.
let roundTripLimits = RedisBrokerPayload.Limits(maxBodyBytes: 1 << 20, maxNameBytes: 1 << 16, maxTokenBytes: 1 << 16)

/// One input. A failed check crashes, which is how libFuzzer learns of it (and saves the input).
func checkBrokerPayloadInput(_ bytes: [UInt8]) {
  // The server API's disconnect order (a presence announcement of the kind `disconnect`):
  // decoded within its limits or not at all.
  if let order = RedisRoomBroker.decodeDisconnect(bytes) {
    guard order.name.utf8.count <= 3 * RedisRoomBroker.maxDisconnectField,
      order.reason.utf8.count <= 3 * RedisRoomBroker.maxDisconnectField, !order.node.isEmpty
    else { fatalError("a disconnect order breaks the limits: \(order)") }
  }
  if let decoded = try? RedisBrokerPayload.decodePayload(bytes, room: "r", limits: fuzzLimits) {
    let message = decoded.message
    guard message.id > 0 else { fatalError("a payload decoded with id 0") }
    checkNames(message.author, message.color)
    guard decoded.epoch.utf8.count <= 3 * fuzzLimits.maxTokenBytes,
      decoded.ref.utf8.count <= 3 * fuzzLimits.maxTokenBytes, !decoded.epoch.isEmpty, !decoded.ref.isEmpty
    else { fatalError("epoch or ref breaks the limits: \(decoded)") }
    let again = RedisBrokerPayload.payload(
      id: message.id, epoch: decoded.epoch, ref: decoded.ref, body: RedisBrokerPayload.body(message))
    guard let back = try? RedisBrokerPayload.decodePayload(again, room: "r", limits: roundTripLimits), back == decoded
    else { fatalError("payload round trip changed \(decoded)") }
  }
  if let (event, node) = try? RedisBrokerPayload.decodePresence(bytes, room: "r", limits: fuzzLimits) {
    guard !event.author.isEmpty, event.members >= 0, !node.isEmpty else {
      fatalError("presence decoded without a name, a count or a node: \(event)")
    }
    checkNames(event.author, event.color)
    let again = RedisBrokerPayload.presence(event, node: node)
    guard let back = try? RedisBrokerPayload.decodePresence(again, room: "r", limits: roundTripLimits),
      back.event == event, back.node == node
    else { fatalError("presence round trip changed \(event) from \(node)") }
  }
  // A member's entry in a room's presence set (`<node>|<member>|<name>`, the member perhaps
  // `<id>:<transport>:<since>`): within its limits, and the same again once re-encoded.
  if let entry = RedisPresenceEntry.decode(bytes, limits: fuzzLimits) {
    guard !entry.node.isEmpty, !entry.member.isEmpty, !entry.name.isEmpty,
      (entry.transport == nil) == (entry.since == nil)
    else { fatalError("a presence entry decoded with an empty field: \(entry)") }
    checkNames(entry.name)
    guard let back = RedisPresenceEntry.decode(entry.encoded.utf8, limits: roundTripLimits), back == entry
    else { fatalError("presence entry round trip changed \(entry)") }
  }
  if let message = try? RedisBrokerPayload.decodeBody(bytes[...], room: "r", limits: fuzzLimits) {
    guard bytes.count <= fuzzLimits.maxBodyBytes, message.id == 0 else {
      fatalError("a body over the limit or with an id decoded: \(message)")
    }
    checkNames(message.author, message.color)
    let again = RedisBrokerPayload.body(message)
    guard let back = try? RedisBrokerPayload.decodeBody(again[...], room: "r", limits: roundTripLimits), back == message
    else { fatalError("body round trip changed \(message)") }
  }
}

/// A decoded name or colour holds at most the limit's bytes of input, each perhaps repaired
/// to U+FFFD (three bytes).
func checkNames(_ names: String...) {
  for name in names where name.utf8.count > 3 * fuzzLimits.maxNameBytes {
    fatalError("a name of \(name.utf8.count) bytes decoded under a limit of \(fuzzLimits.maxNameBytes)")
  }
}

#if FUZZ_BROKER_PAYLOAD
  @_cdecl("LLVMFuzzerTestOneInput")
  public func fuzzBrokerPayloadInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    Fuzz.one(data, size, checkBrokerPayloadInput)
  }
#else
  @main enum Replay { static func main() { Fuzz.replay(checkBrokerPayloadInput) } }
#endif
