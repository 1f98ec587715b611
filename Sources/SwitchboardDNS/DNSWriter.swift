/// Writes a DNS message, compressing names as ``DNSCompression`` allows.
///
/// Compression keeps a table from each name suffix written in place (its exact wire bytes) to
/// the offset where it starts; a later name whose suffix is in the table ends in a pointer to
/// it. Only offsets below 0x4000 fit in a pointer's 14 bits, so later ones are not recorded.
struct DNSWriter {
  private(set) var bytes: [UInt8] = []
  private var suffixes: [ArraySlice<UInt8>: Int] = [:]
  let compression: DNSCompression

  init(compression: DNSCompression) {
    self.compression = compression
    bytes.reserveCapacity(512)
  }

  mutating func u16(_ value: UInt16) {
    bytes.append(UInt8(value >> 8))
    bytes.append(UInt8(truncatingIfNeeded: value))
  }

  mutating func u32(_ value: UInt32) {
    for shift in [24, 16, 8, 0] as [UInt32] { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
  }

  /// Writes `name`, ending in a pointer when `compress` and an earlier suffix matches.
  mutating func name(_ name: DNSName, compress: Bool) {
    let wire = name.wire
    var index = 0
    while index < wire.count {
      let suffix = wire[index...]
      if compress, compression != .none, let target = suffixes[suffix] {
        u16(0xC000 | UInt16(target))
        return
      }
      if compression != .none, bytes.count < 0x4000, suffixes[suffix] == nil {
        suffixes[suffix] = bytes.count
      }
      let length = Int(wire[index])
      bytes += wire[index...(index + length)]
      index += 1 + length
    }
    bytes.append(0)
  }

  mutating func question(_ question: DNSQuestion) {
    name(question.name, compress: true)
    u16(question.type.rawValue)
    u16(question.dnsClass.rawValue | (question.unicastResponse ? 0x8000 : 0))
  }

  mutating func record(_ record: DNSRecord) {
    name(record.name, compress: true)
    u16(record.type.rawValue)
    u16(record.dnsClass.rawValue | (record.cacheFlush ? 0x8000 : 0))
    u32(record.ttl)
    let lengthOffset = bytes.count
    u16(0)
    let start = bytes.count
    let multicast = compression == .multicast
    switch record.rdata {
    case .a(let address): u32(address.rawValue)
    case .aaaa(let address): bytes += address.bytes
    case .ptr(let target): name(target, compress: true)
    case .srv(let priority, let weight, let port, let target):
      u16(priority)
      u16(weight)
      u16(port)
      name(target, compress: multicast)
    case .txt(let txt): bytes += txt.wire
    case .nsec(let next, let types):
      name(next, compress: multicast)
      typeBitmap(types)
    case .unknown(_, let data): bytes += data
    }
    let length = bytes.count - start
    precondition(length <= 0xFFFF, "\(record.type) rdata of \(length) bytes does not fit a DNS record")
    bytes[lengthOffset] = UInt8(length >> 8)
    bytes[lengthOffset + 1] = UInt8(truncatingIfNeeded: length)
  }

  /// RFC 4034 §4.1.2: one window per used high byte, in order, each only as long as its
  /// highest set bit needs.
  private mutating func typeBitmap(_ types: Set<DNSRecordType>) {
    var windows: [UInt8: [UInt8]] = [:]
    for type in types {
      let window = UInt8(type.rawValue >> 8)
      let low = Int(type.rawValue & 0xFF)
      var bits = windows[window] ?? []
      if bits.count <= low >> 3 { bits += Array(repeating: 0, count: (low >> 3) + 1 - bits.count) }
      bits[low >> 3] |= 0x80 >> UInt8(low & 7)
      windows[window] = bits
    }
    for window in windows.keys.sorted() {
      let bits = windows[window]!
      bytes.append(window)
      bytes.append(UInt8(bits.count))
      bytes += bits
    }
  }
}
