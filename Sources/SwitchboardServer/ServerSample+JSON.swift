import SwitchboardAuth
import SwitchboardChat

/// A sample as one JSON object: what each node stores for the others under `--redis`
/// (``RoomBroker/storeNodeStatus(node:_:)``) and what the console's snapshots are made of.
/// Room rates are left out: a node reports its own rooms' rates only to its own console.
extension ServerSample {
  /// Why ``init(json:)`` refused the bytes.
  public struct DecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String
  }

  /// The longest string field (node id, version) a decoded sample may carry.
  public static let maxFieldLength = 256

  /// The sample's fields as a JSON object (no `roomRates`; `residentBytes` is `null` where
  /// unknown; `connections` holds the five transports).
  public var json: JSONValue {
    var transports: [String: JSONValue] = [:]
    for transport in Self.transports { transports[transport] = .number(Double(connections[transport] ?? 0)) }
    return .object([
      "time": .number(Double(time)), "node": .string(node), "version": .string(version),
      "uptimeSeconds": .number(Double(uptimeSeconds)), "connections": .object(transports),
      "members": .number(Double(members)), "rooms": .number(Double(rooms)),
      "messagesPerSecond": .number(messagesPerSecond), "deliveriesPerSecond": .number(deliveriesPerSecond),
      "lagP50Ms": .number(lagP50Ms), "lagP99Ms": .number(lagP99Ms), "heapBytes": .number(Double(heapBytes)),
      "residentBytes": residentBytes.map { .number(Double($0)) } ?? .null,
    ])
  }

  /// Reads a sample another node stored: at most ``NodeStatusLimits/maxBytes`` of JSON, an
  /// object with every field of ``json`` (numbers finite and not negative, whole where
  /// the field is a count; strings at most ``maxFieldLength`` bytes). Unknown fields are
  /// ignored, so a newer node may add some; ``roomRates`` is empty.
  /// - Throws: ``DecodingError`` saying which field is wrong.
  public init(json bytes: [UInt8]) throws(DecodingError) {
    guard bytes.count <= NodeStatusLimits.maxBytes else { throw DecodingError(description: "too large") }
    let value: JSONValue
    do {
      value = try JSONValue(parsing: bytes, maxDepth: 4)
    } catch {
      throw DecodingError(description: "not JSON: \(error)")
    }
    guard case .object(let object) = value else { throw DecodingError(description: "not an object") }
    func number(_ key: String, in object: [String: JSONValue] = object) throws(DecodingError) -> Double {
      guard let n = object[key]?.numberValue, n.isFinite, n >= 0, n < 9e15 else {
        throw DecodingError(description: "\(key) is not a number")
      }
      return n
    }
    func count(_ key: String, in object: [String: JSONValue] = object) throws(DecodingError) -> Int {
      let n = try number(key, in: object)
      guard n == n.rounded() else { throw DecodingError(description: "\(key) is not a whole number") }
      return Int(n)
    }
    func string(_ key: String) throws(DecodingError) -> String {
      guard let s = object[key]?.stringValue, s.utf8.count <= Self.maxFieldLength else {
        throw DecodingError(description: "\(key) is not a string")
      }
      return s
    }
    guard case .object(let transports)? = object["connections"] else {
      throw DecodingError(description: "connections is not an object")
    }
    var connections: [String: Int] = [:]
    for transport in Self.transports { connections[transport] = try count(transport, in: transports) }
    var resident: Int?
    if object["residentBytes"] != .null { resident = try count("residentBytes") }
    self.init(
      time: Int64(try count("time")), node: try string("node"), version: try string("version"),
      uptimeSeconds: try count("uptimeSeconds"), connections: connections, members: try count("members"),
      rooms: try count("rooms"), messagesPerSecond: try number("messagesPerSecond"),
      deliveriesPerSecond: try number("deliveriesPerSecond"), lagP50Ms: try number("lagP50Ms"),
      lagP99Ms: try number("lagP99Ms"), heapBytes: try count("heapBytes"), residentBytes: resident,
      roomRates: [:])
  }
}
