/// One second of this node, sampled on the server's first loop (``ServerSampler``): what the
/// admin console draws and what, under `--redis`, each node tells the others.
public struct ServerSample: Sendable, Equatable {
  /// The transports in ``connections``, in the order the console lists them.
  public static let transports = ["tcp", "tls", "udp", "ws", "wss"]

  /// When it was taken, milliseconds since the epoch.
  public var time: Int64
  /// The node's id (`--node-id`, as `GET /api/info` gives it).
  public var node: String
  /// The server's version.
  public var version: String
  /// Whole seconds since the server started.
  public var uptimeSeconds: Int
  /// Connections open now by transport: `tcp`, `tls`, `udp` (members), `ws`, `wss`, every
  /// key present (0 when none).
  public var connections: [String: Int]
  /// Members on this node.
  public var members: Int
  /// Rooms with members on this node.
  public var rooms: Int
  /// Messages published on this node per second, over the time since the previous sample.
  public var messagesPerSecond: Double
  /// Messages handed to members on this node per second (one per member per message).
  public var deliveriesPerSecond: Double
  /// The median loop lag over the last second, across every loop, in milliseconds (the
  /// upper bound of the histogram bucket it falls in; 0 with no tick in the window).
  public var lagP50Ms: Double
  /// The 99th percentile loop lag over the last second, across every loop, in milliseconds.
  public var lagP99Ms: Double
  /// Bytes of heap in use (``HeapPolicy/bytesInUse``).
  public var heapBytes: Int
  /// Bytes resident (Linux; `nil` elsewhere).
  public var residentBytes: Int?
  /// Messages per second of each room open here, from its last id's change since the
  /// previous sample (a room first seen has 0). Only the latest sample carries them: the
  /// ones kept in ``ServerSampler/history()`` have none, so that ten minutes of history do
  /// not hold ten minutes of room tables.
  public var roomRates: [String: Double]

  /// A sample of these figures.
  public init(
    time: Int64, node: String, version: String, uptimeSeconds: Int, connections: [String: Int], members: Int,
    rooms: Int, messagesPerSecond: Double, deliveriesPerSecond: Double, lagP50Ms: Double, lagP99Ms: Double,
    heapBytes: Int, residentBytes: Int?, roomRates: [String: Double]
  ) {
    self.time = time
    self.node = node
    self.version = version
    self.uptimeSeconds = uptimeSeconds
    self.connections = connections
    self.members = members
    self.rooms = rooms
    self.messagesPerSecond = messagesPerSecond
    self.deliveriesPerSecond = deliveriesPerSecond
    self.lagP50Ms = lagP50Ms
    self.lagP99Ms = lagP99Ms
    self.heapBytes = heapBytes
    self.residentBytes = residentBytes
    self.roomRates = roomRates
  }
}
