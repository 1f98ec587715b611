import SwitchboardChat
import SwitchboardIO

/// The UDP port: one datagram one message, the seed's `Server received:` echo, and every
/// recent sender a member of its room that receives the room's messages as datagrams.
final class UDPService: UDPSocketDelegate {
  let socket: UDPSocket
  // Safety: `unowned(unsafe)` for the reason and with the lifetime argument of
  // `WebSocketSession.context`: read on every datagram and every delivery (`send`), and
  // alive whenever this code runs, which is only on its loop's thread while that loop runs
  // (deliveries queued for a member after `close` run there too, before the loop stops),
  // which the context outlives.
  unowned(unsafe) let context: LoopContext
  private var members: [SocketAddress: UDPMember] = [:]
  private var sweeper: Scheduled?
  /// `--max-datagram-rate` (nil: off).
  private var sourceLimit: SourceRateLimiter?
  // Read on every datagram, so kept here: each read of `context.configuration` (or of
  // `context.core.configuration`) copies and destroys the whole configuration struct.
  /// The largest datagram accepted (`ServerConfiguration.maxDatagramSize`).
  private let maxDatagramSize: Int
  /// Whether the server checks tokens (the UDP port then answers every datagram with a refusal).
  private let checksTokens: Bool

  init(socket: UDPSocket, context: LoopContext) {
    self.socket = socket
    self.context = context
    maxDatagramSize = context.configuration.maxDatagramSize
    checksTokens = context.configuration.tokenVerifier != nil
    socket.delegate = self
    sourceLimit = context.configuration.limits.maxDatagramRate.map { SourceRateLimiter(rate: $0) }
    let ttl = context.configuration.udpMemberTTL
    let every: Duration = ttl < .seconds(5) ? .milliseconds(200) : .seconds(1)
    sweeper = context.loop.scheduleRepeatingLocal(every: every) { [weak self] in self?.expireIdle() }
  }

  func socket(_ socket: UDPSocket, didReceive bytes: UnsafeRawBufferPointer, from sender: SocketAddress, truncated: Bool) {
    let metrics = context.metrics
    metrics.udpReceived.add(1, ordering: .relaxed)
    context.stats.udp.received.add(bytes.count, ordering: .relaxed)
    if sourceLimit != nil, !sourceLimit!.admit(source: sender.ipAddress, now: Deadline.now().nanoseconds) {
      metrics.limits.datagramsRateLimited.add(1, ordering: .relaxed)
      return
    }
    guard !truncated, bytes.count <= maxDatagramSize else {
      metrics.udpDropped.add(1, ordering: .relaxed)
      context.logger.debug(
        "dropped an oversized datagram",
        metadata: .connection(peer: sender, dialect: "udp").merging(["bytes": "\(bytes.count)"]) { $1 })
      return
    }
    var text = LineDialect.decode(bytes)
    while let last = text.last, last == "\n" || last == "\r" || last == "\r\n" { text.removeLast() }
    // An empty datagram, or another server's echo: answering an echo would start a
    // reflection loop between two servers (each echoing the other's echo, as fast as the
    // loopback carries it) when one's member address comes to belong to the other — a
    // client's port reused by a new server's socket, or a spoofed source address.
    guard !text.isEmpty, !text.hasPrefix(UDPService.echoPrefix) else {
      metrics.udpDropped.add(1, ordering: .relaxed)
      return
    }
    if checksTokens {
      // The UDP dialect takes no tokens: with auth on it is closed to chat (docs/SECURITY.md).
      socket.send(SharedBytes(string: UDPService.authAnswer + "\n"), to: sender)
      return
    }
    let member: UDPMember
    if let existing = members[sender] {
      member = existing
    } else {
      member = UDPMember(address: sender, service: self)
      members[sender] = member
      context.hub.join(
        member, shard: context.shard, name: "Client \(member.memberID.raw)",
        room: context.configuration.defaultRoom, announce: false)
    }
    member.lastSeen = Deadline.now()
    member.reply(UDPService.echoPrefix + " " + text)
    member.perform(line: text)
  }

  func send(_ bytes: SharedBytes, to address: SocketAddress) {
    context.stats.udp.sent.add(bytes.count, ordering: .relaxed)
    socket.send(bytes, to: address)
  }

  func remove(_ member: UDPMember) {
    guard members.removeValue(forKey: member.address) != nil else { return }
    context.hub.leave(member.memberID)
  }

  private func expireIdle() {
    let now = Deadline.now()
    sourceLimit?.sweep(now: now.nanoseconds)
    let ttl = context.configuration.udpMemberTTL.nanoseconds
    for member in members.values where now.nanoseconds &- member.lastSeen.nanoseconds >= ttl {
      remove(member)
    }
  }

  /// What every answered datagram's echo starts with (the seed server's reply); a datagram
  /// that starts with it is another server's echo and is dropped, not answered.
  static let echoPrefix = "Server received:"
  /// The answer to every datagram when the server checks tokens.
  static let authAnswer = "! authentication required: the UDP port takes no tokens (use tcp://, tls:// or ws:// with one)"

  /// Members currently known (for tests and metrics).
  var memberCount: Int { members.count }

  func close() {
    sweeper?.cancel()
    for member in Array(members.values) { remove(member) }
    socket.close()
  }
}
