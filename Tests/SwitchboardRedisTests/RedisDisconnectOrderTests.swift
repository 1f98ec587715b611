import SwitchboardChat
import SwitchboardRedis
import SwitchboardWire
import Testing

/// The server API's disconnect order on a room's channel (RedisRoomBroker+Disconnect.swift):
/// what decodes as one, and that presence announcements and bad lengths do not.
@Suite(.onTestThreads)
struct RedisDisconnectOrderTests {
  private func order(_ text: String) -> (node: String, name: String, reason: String)? {
    RedisRoomBroker.decodeDisconnect(Array(text.utf8))
  }

  @Test func anOrderDecodesToItsNodeNameAndReason() {
    let decoded = order("sb1p 3 disconnect n1 7 0 15 mallorybye, with space")
    #expect(decoded?.node == "n1")
    #expect(decoded?.name == "mallory")
    #expect(decoded?.reason == "bye, with space")
    #expect(order("sb1p 0 disconnect n1 3 0 0 bob")?.reason == "")
  }

  @Test func presenceAndBadLengthsAreNoOrders() {
    let join = PresenceEvent(kind: .join, author: "bob", room: "r", members: 1, color: "red")
    #expect(RedisRoomBroker.decodeDisconnect(RedisBrokerPayload.presence(join, node: "n1")) == nil)
    #expect(order("sb1p 3 disconnect n1 8 0 15 mallorybye, with space") == nil)
    #expect(order("sb1p 3 disconnect n1 7 1 15 mallorybye, with space") == nil)
    #expect(order("sb1p x disconnect n1 3 0 0 bob") == nil)
    #expect(order("sb1p 3 disconnect n1 99999 0 0 bob") == nil)
    #expect(order("sb1 3 disconnect n1 3 0 0 bob") == nil)
    #expect(order("") == nil)
  }
}
