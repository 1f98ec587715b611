/// Reads a DNS message from bytes: bounds-checked everywhere, every failure a ``DNSError``.
///
/// Names are read with the rules that make decompression safe: a pointer must point into the
/// message, strictly before the part of the name read so far (so every jump goes lower and no
/// chain can loop), and no name follows more than ``DNSLimits/maxPointersPerName`` of them.
struct DNSReader {
  let bytes: [UInt8]
  var offset = 0

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  var remaining: Int { bytes.count - offset }

  /// A name and the offset just after its in-place part.
  typealias NameEnd = (name: DNSName, end: Int)

  mutating func u16(_ truncated: DNSError) throws(DNSError) -> UInt16 {
    guard remaining >= 2 else { throw truncated.with("\(truncated.message) at offset \(offset)") }
    defer { offset += 2 }
    return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
  }

  mutating func u32(_ truncated: DNSError) throws(DNSError) -> UInt32 {
    guard remaining >= 4 else { throw truncated.with("\(truncated.message) at offset \(offset)") }
    defer { offset += 4 }
    return bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
  }

  /// Reads the name at ``offset`` and moves past its in-place part.
  mutating func name(_ truncated: DNSError) throws(DNSError) -> DNSName {
    let (name, end) = try name(at: offset, limit: bytes.count, overrun: truncated, truncated: truncated)
    offset = end
    return name
  }

  /// Reads a name starting at `start`; returns it and the offset after its in-place part (the
  /// root byte or the first pointer).
  /// - Parameters:
  ///   - limit: the in-place part must end by here (the end of the rdata for a name inside one).
  ///   - overrun: thrown when the in-place part runs past `limit`.
  ///   - truncated: thrown when a label reached through a pointer runs past the message.
  func name(at start: Int, limit: Int, overrun: DNSError, truncated: DNSError) throws(DNSError) -> NameEnd {
    var wire: [UInt8] = []
    var position = start
    var bound = limit
    var end: Int? = nil
    var lowest = start
    var pointers = 0
    while true {
      guard position < bound else {
        let error = end == nil ? overrun : truncated
        throw error.with("name at offset \(start) runs past \(end == nil ? "its end" : "the message")")
      }
      let length = bytes[position]
      switch length >> 6 {
      case 0:
        if length == 0 {
          return (DNSName(uncheckedWire: wire), end ?? position + 1)
        }
        let labelEnd = position + 1 + Int(length)
        guard labelEnd <= bound else {
          let error = end == nil ? overrun : truncated
          throw error.with("label at offset \(position) runs past \(end == nil ? "its end" : "the message")")
        }
        guard wire.count + Int(length) + 2 <= DNSName.maxWireLength else {
          throw DNSError.nameTooLong.with("name at offset \(start) is longer than 255 bytes")
        }
        wire += bytes[position..<labelEnd]
        position = labelEnd
      case 3:
        guard position + 1 < bound else {
          let error = end == nil ? overrun : truncated
          throw error.with("compression pointer at offset \(position) is cut off")
        }
        let target = Int(length & 0x3F) << 8 | Int(bytes[position + 1])
        if end == nil { end = position + 2 }
        pointers += 1
        guard pointers <= DNSLimits.maxPointersPerName else {
          throw DNSError.pointerLoop.with(
            "name at offset \(start) follows more than \(DNSLimits.maxPointersPerName) pointers")
        }
        guard target < bytes.count else {
          throw DNSError.pointerOutOfBounds.with(
            "pointer at offset \(position) to \(target), past the message's \(bytes.count) bytes")
        }
        if target >= lowest {
          let error: DNSError = target > position ? .forwardPointer : .pointerLoop
          throw error.with(
            "pointer at offset \(position) to \(target), not before the name read so far (\(lowest))")
        }
        lowest = target
        position = target
        bound = bytes.count
      default:
        let labelType = length >> 6 == 1 ? "0x40" : "0x80"
        throw DNSError.badLabelType.with(
          "length byte 0x\(String(length, radix: 16)) at offset \(position) (label type \(labelType))")
      }
    }
  }

  mutating func question() throws(DNSError) -> DNSQuestion {
    let name = try name(.truncatedQuestion)
    let type = try u16(.truncatedQuestion)
    let rawClass = try u16(.truncatedQuestion)
    return DNSQuestion(
      name: name, type: DNSRecordType(type), unicastResponse: rawClass & 0x8000 != 0,
      dnsClass: DNSClass(rawValue: rawClass))
  }

  mutating func record() throws(DNSError) -> DNSRecord {
    let name = try name(.truncatedRecord)
    let type = DNSRecordType(try u16(.truncatedRecord))
    let rawClass = try u16(.truncatedRecord)
    let ttl = try u32(.truncatedRecord)
    let length = Int(try u16(.truncatedRecord))
    guard length <= remaining else {
      throw DNSError.truncatedRecordData.with(
        "\(type) record at offset \(offset - 10) declares \(length) bytes of data, \(remaining) remain")
    }
    let rdata = try recordData(type: type, start: offset, end: offset + length)
    offset += length
    return DNSRecord(
      name: name, ttl: ttl, rdata: rdata, cacheFlush: rawClass & 0x8000 != 0,
      dnsClass: DNSClass(rawValue: rawClass))
  }

  private func mismatch(_ type: DNSRecordType, _ start: Int, _ end: Int, _ why: String) -> DNSError {
    DNSError.recordDataLengthMismatch.with("\(type) data of \(end - start) bytes at offset \(start): \(why)")
  }

  /// A name inside rdata `start..<end`; its in-place part must end by `end`.
  private func rdataName(_ type: DNSRecordType, at position: Int, _ start: Int, _ end: Int) throws(DNSError)
    -> NameEnd
  {
    try name(
      at: position, limit: end, overrun: mismatch(type, start, end, "a name runs past the data"),
      truncated: .truncatedRecordData)
  }

  private func recordData(type: DNSRecordType, start: Int, end: Int) throws(DNSError) -> DNSRecordData {
    let data = bytes[start..<end]
    switch type {
    case .a:
      guard let address = DNSIPv4Address(bytes: data) else { throw mismatch(type, start, end, "must be 4") }
      return .a(address)
    case .aaaa:
      guard let address = DNSIPv6Address(bytes: data) else { throw mismatch(type, start, end, "must be 16") }
      return .aaaa(address)
    case .ptr:
      let (target, after) = try rdataName(type, at: start, start, end)
      guard after == end else { throw mismatch(type, start, end, "bytes after the name") }
      return .ptr(target)
    case .srv:
      guard end - start >= 7 else { throw mismatch(type, start, end, "shorter than 7") }
      func field(_ index: Int) -> UInt16 {
        UInt16(bytes[start + index]) << 8 | UInt16(bytes[start + index + 1])
      }
      let (target, after) = try rdataName(type, at: start + 6, start, end)
      guard after == end else { throw mismatch(type, start, end, "bytes after the target") }
      return .srv(priority: field(0), weight: field(2), port: field(4), target: target)
    case .txt:
      return .txt(try DNSTXT(wire: data))
    case .nsec:
      let (next, after) = try rdataName(type, at: start, start, end)
      return .nsec(nextName: next, types: try typeBitmap(after, end))
    default:
      if let layout = Self.compressibleLayouts[type.rawValue] {
        return .unknown(type, try expanding(layout, type, start, end))
      }
      return .unknown(type, Array(data))
    }
  }

  /// The NSEC type bitmap (RFC 4034 §4.1.2): windows of (number, length 1...32, bits).
  private func typeBitmap(_ start: Int, _ end: Int) throws(DNSError) -> Set<DNSRecordType> {
    var types: Set<DNSRecordType> = []
    var index = start
    while index < end {
      guard end - index >= 2 else {
        throw DNSError.malformedRecordData.with("NSEC bitmap window at offset \(index) is cut off")
      }
      let window = Int(bytes[index])
      let length = Int(bytes[index + 1])
      guard (1...32).contains(length), length <= end - index - 2 else {
        throw DNSError.malformedRecordData.with("NSEC bitmap window at offset \(index) has length \(length)")
      }
      for byteIndex in 0..<length {
        let bits = bytes[index + 2 + byteIndex]
        for bit in 0..<8 where bits & (0x80 >> bit) != 0 {
          types.insert(DNSRecordType(UInt16(window << 8 | byteIndex << 3 | bit)))
        }
      }
      index += 2 + length
    }
    return types
  }

  /// A field of rdata whose names may be compressed: a name, or a run of fixed-size bytes.
  enum Field: Sendable {
    case name
    case fixed(Int)
  }

  /// Layouts of the types whose rdata names RFC 6762 §18.14 (and RFC 3597 §4) let senders
  /// compress, apart from those decoded into their own cases.
  static let compressibleLayouts: [UInt16: [Field]] = [
    DNSRecordType.ns.rawValue: [.name],
    DNSRecordType.cname.rawValue: [.name],
    DNSRecordType.dname.rawValue: [.name],
    DNSRecordType.soa.rawValue: [.name, .name, .fixed(20)],
    DNSRecordType.mx.rawValue: [.fixed(2), .name],
    DNSRecordType.afsdb.rawValue: [.fixed(2), .name],
    DNSRecordType.rt.rawValue: [.fixed(2), .name],
    DNSRecordType.kx.rawValue: [.fixed(2), .name],
    DNSRecordType.rp.rawValue: [.name, .name],
    DNSRecordType.px.rawValue: [.fixed(2), .name, .name],
  ]

  /// The rdata with its names written out whole.
  private func expanding(_ layout: [Field], _ type: DNSRecordType, _ start: Int, _ end: Int) throws(DNSError)
    -> [UInt8]
  {
    var out: [UInt8] = []
    var index = start
    for field in layout {
      switch field {
      case .name:
        let (name, after) = try rdataName(type, at: index, start, end)
        out += name.wire
        out.append(0)
        index = after
      case .fixed(let count):
        guard end - index >= count else { throw mismatch(type, start, end, "too short") }
        out += bytes[index..<index + count]
        index += count
      }
    }
    guard index == end else { throw mismatch(type, start, end, "bytes after the last field") }
    return out
  }
}
