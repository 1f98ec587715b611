/// Which of Redis Cluster's 16,384 hash slots a key belongs to: CRC16 (the XMODEM variant:
/// polynomial 0x1021, initial value 0, no reflection) of the key, modulo 16,384.
///
/// When the key holds a `{…}` with at least one byte between the first `{` and the first
/// `}` after it, only those bytes are hashed (the hash tag): `sb:{lobby}:meta` and
/// `sb:{lobby}:log` share the slot of `lobby`. An empty tag (`{}`) does not count, and the
/// whole key is hashed.
///
/// ```swift
/// RedisKeySlot.slot(of: "123456789")        // 12739, as CLUSTER KEYSLOT answers
/// RedisKeySlot.slot(of: "sb:{lobby}:meta")  // the slot of "lobby"
/// ```
public enum RedisKeySlot {
  /// How many slots a cluster has.
  public static let count = 16384

  /// The slot of `key`'s bytes (hash tag rule included).
  public static func slot(of key: some Collection<UInt8>) -> Int {
    let bytes = Array(key)
    if let open = bytes.firstIndex(of: UInt8(ascii: "{")),
      let close = bytes[(open + 1)...].firstIndex(of: UInt8(ascii: "}")), close > open + 1
    {
      return Int(crc16(bytes[(open + 1)..<close]) & UInt16(count - 1))
    }
    return Int(crc16(bytes) & UInt16(count - 1))
  }

  /// The slot of `key` (its UTF-8 bytes).
  public static func slot(of key: String) -> Int { slot(of: Array(key.utf8)) }

  /// CRC16/XMODEM of `bytes` (`crc16("123456789") == 0x31C3`).
  public static func crc16(_ bytes: some Collection<UInt8>) -> UInt16 {
    var crc: UInt16 = 0
    for byte in bytes {
      crc = (crc << 8) ^ table[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)]
    }
    return crc
  }

  private static let table: [UInt16] = (0..<256).map { index in
    var crc = UInt16(index) << 8
    for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
    return crc
  }
}
