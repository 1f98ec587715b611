/// One on-link prefix of an interface: an address and how many of its leading bits name the
/// subnet (`10.9.8.1/24`, `fd00::1/64`). What ``MDNSSourceVerdict`` matches a querier's
/// source address against (RFC 6762 §5.5, §11).
public struct MDNSSubnet: Sendable, Hashable {
  /// The interface's address: 4 bytes (IPv4) or 16 (IPv6), in network order.
  public let address: [UInt8]
  /// Leading bits that name the subnet (0...32 for IPv4, 0...128 for IPv6).
  public let prefixLength: Int

  /// A prefix; `nil` unless `address` has 4 or 16 bytes and `prefixLength` fits it.
  public init?(address: [UInt8], prefixLength: Int) {
    guard address.count == 4 || address.count == 16, (0...address.count * 8).contains(prefixLength) else {
      return nil
    }
    self.address = address
    self.prefixLength = prefixLength
  }

  /// A prefix from an address and its netmask (as `getifaddrs` gives them): the prefix is the
  /// netmask's leading one bits. `nil` when the two differ in length or are not 4 or 16 bytes.
  public init?(address: [UInt8], netmask: [UInt8]) {
    guard netmask.count == address.count else { return nil }
    var length = 0
    for byte in netmask {
      length += (~byte).leadingZeroBitCount
      if byte != 0xFF { break }
    }
    self.init(address: address, prefixLength: length)
  }

  /// Whether `other` (same family: 4 or 16 bytes) lies in this subnet.
  public func contains(_ other: [UInt8]) -> Bool {
    guard other.count == address.count else { return false }
    var bits = prefixLength
    for (mine, theirs) in zip(address, other) where bits > 0 {
      let mask: UInt8 = bits >= 8 ? 0xFF : ~(0xFF >> UInt8(bits))
      if mine & mask != theirs & mask { return false }
      bits -= 8
    }
    return true
  }
}
