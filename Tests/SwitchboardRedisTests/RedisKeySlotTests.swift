import SwitchboardRESP
import SwitchboardTestSupport
import Testing

@testable import SwitchboardRedis

/// CRC16/XMODEM and the hash-tag rule, against values Redis's `CLUSTER KEYSLOT` gives
/// (the cluster suite checks many more against a running server).
@Suite(.onTestThreads)
struct RedisKeySlotTests {
  @Test func crc16IsXMODEM() {
    #expect(RedisKeySlot.crc16(Array("123456789".utf8)) == 0x31C3)
    #expect(RedisKeySlot.crc16([UInt8]()) == 0)
  }

  @Test(arguments: [
    ("123456789", 12739), ("foo", 12182), ("bar", 5061), ("", 0),
    ("{user1000}.following", 3443), ("{user1000}.followers", 3443),
    ("foo{}{bar}", 8363), ("foo{{bar}}zap", 4015), ("foo{bar}{zap}", 5061), ("{}", 15257),
  ])
  func slotsMatchClusterKeyslot(key: String, slot: Int) {
    #expect(RedisKeySlot.slot(of: key) == slot)
  }

  @Test func aRoomsKeysShareOneSlot() {
    let keys = RedisRoomKeys(room: "général {x}")
    let slot = RedisKeySlot.slot(of: keys.meta)
    #expect(
      [keys.log, keys.channel, keys.members, keys.ref("n:1")].allSatisfy { RedisKeySlot.slot(of: $0) == slot }
    )
    #expect(slot == RedisKeySlot.slot(of: RedisRoomKeys.encode("général {x}")))
  }
}
