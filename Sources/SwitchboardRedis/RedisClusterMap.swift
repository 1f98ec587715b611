import SwitchboardRESP

/// Which master serves each of a Redis Cluster's slots, read from `CLUSTER SLOTS`.
///
/// A pure value: ``init(slots:answeredBy:limits:)`` checks the server's answer against
/// ``Limits`` (ranges, nodes, host length) and throws on anything else, so a confused or
/// hostile server cannot make the client allocate without bound. ``redirect(_:)`` reads the
/// `MOVED`/`ASK` errors that tell a client the map is stale.
public struct RedisClusterMap: Sendable, Equatable {
  /// One master, by the address clients reach it at.
  public struct Node: Sendable, Hashable, CustomStringConvertible {
    /// Host or IP address, as the cluster announces it.
    public var host: String
    /// Its client port.
    public var port: Int
    /// A node from its address.
    public init(host: String, port: Int) {
      self.host = host
      self.port = port
    }
    /// `host:port`.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
  }

  /// What the server is told to move a command (a `MOVED` or `ASK` error).
  public enum Redirect: Sendable, Hashable {
    /// The slot lives on `node` now: update the map, send there.
    case moved(slot: Int, node: Node)
    /// The slot is migrating and this key is already on `node`: send `ASKING` and the
    /// command there, once; the map stays.
    case ask(slot: Int, node: Node)
  }

  /// Bounds on a `CLUSTER SLOTS` answer.
  public struct Limits: Sendable, Hashable {
    /// Most slot ranges (one per slot at worst). 16,384 by default.
    public var maxRanges = RedisKeySlot.count
    /// Most distinct masters. 1,000 by default (Redis's own recommended maximum).
    public var maxNodes = 1000
    /// Longest host name, in bytes. 255 by default.
    public var maxHostLength = 255
    /// The default limits.
    public init() {}
  }

  /// The masters, in the order the map first met them.
  public private(set) var nodes: [Node] = []
  /// Index into ``nodes`` per slot; `noOwner` for a slot nobody serves.
  private var owners = [UInt16](repeating: noOwner, count: RedisKeySlot.count)
  private static let noOwner = UInt16.max

  /// An empty map (no slot served).
  public init() {}

  /// The map in a `CLUSTER SLOTS` reply: `[[first, last, [host, port, id, …], replicas…], …]`.
  /// An empty host (a node that does not know its own address) means `answeredBy`'s host.
  /// - Throws: ``RedisError`` of kind ``RedisError/Kind/protocolError`` for a malformed
  ///   answer, ``RedisError/Kind/limit`` beyond `limits`.
  public init(slots reply: RESPValue, answeredBy: Node, limits: Limits = Limits()) throws(RedisError) {
    guard let ranges = reply.elements else { throw .protocolError("CLUSTER SLOTS: not an array") }
    guard ranges.count <= limits.maxRanges else {
      throw .limit("CLUSTER SLOTS: \(ranges.count) ranges (at most \(limits.maxRanges))")
    }
    for range in ranges {
      guard let parts = range.elements, parts.count >= 3, let first = parts[0].integer,
        let last = parts[1].integer, 0 <= first, first <= last, last < RedisKeySlot.count,
        let master = parts[2].elements, master.count >= 2, let hostBytes = master[0].bytes,
        let port = master[1].integer, (1...65535).contains(port)
      else { throw .protocolError("CLUSTER SLOTS: malformed range \(range)") }
      guard hostBytes.count <= limits.maxHostLength else {
        throw .limit("CLUSTER SLOTS: a host of \(hostBytes.count) bytes")
      }
      var host = String(decoding: hostBytes, as: UTF8.self)
      if host.isEmpty || host == "?" { host = answeredBy.host }
      let node = Node(host: host, port: Int(port))
      if !nodes.contains(node) {
        guard nodes.count < limits.maxNodes else {
          throw .limit("CLUSTER SLOTS: more than \(limits.maxNodes) masters")
        }
      }
      for slot in Int(first)...Int(last) { assign(slot, to: node) }
    }
  }

  /// The master serving `slot`, if any.
  public func node(forSlot slot: Int) -> Node? {
    guard (0..<RedisKeySlot.count).contains(slot) else { return nil }
    let owner = owners[slot]
    return owner == Self.noOwner ? nil : nodes[Int(owner)]
  }

  /// The master serving `key`'s slot.
  public func node(forKey key: some Collection<UInt8>) -> Node? { node(forSlot: RedisKeySlot.slot(of: key)) }

  /// How many slots have a master.
  public var coveredSlots: Int { owners.count { $0 != Self.noOwner } }

  /// The slots `node` serves.
  public func slots(of node: Node) -> [Int] {
    guard let index = nodes.firstIndex(of: node) else { return [] }
    return owners.indices.filter { owners[$0] == UInt16(index) }
  }

  /// Records that `slot` lives on `node` (what a `MOVED` says).
  public mutating func assign(_ slot: Int, to node: Node) {
    guard (0..<RedisKeySlot.count).contains(slot) else { return }
    let index: Int
    if let known = nodes.firstIndex(of: node) {
      index = known
    } else {
      nodes.append(node)
      index = nodes.count - 1
    }
    owners[slot] = UInt16(index)
  }

  /// The redirect in `error` (`MOVED 3999 127.0.0.1:6381`, `ASK 3999 127.0.0.1:6381`), or
  /// `nil` when it is none. An empty host means the host of `from`.
  public static func redirect(_ error: RedisError, from: Node) -> Redirect? {
    guard error.kind == .server, error.prefix == "MOVED" || error.prefix == "ASK" else { return nil }
    let words = error.message.split(separator: " ")
    guard words.count == 3, let slot = Int(words[1]), (0..<RedisKeySlot.count).contains(slot),
      let colon = words[2].lastIndex(of: ":"), let port = Int(words[2][words[2].index(after: colon)...]),
      (1...65535).contains(port)
    else { return nil }
    var host = String(words[2][..<colon])
    if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    let node = Node(host: host.isEmpty ? from.host : host, port: port)
    return error.prefix == "MOVED" ? .moved(slot: slot, node: node) : .ask(slot: slot, node: node)
  }
}
