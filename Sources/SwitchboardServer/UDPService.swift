import SwitchboardChat
import SwitchboardIO
import SwitchboardWire

/// The UDP port: one datagram one message, the seed's `Server received:` echo, and every
/// recent sender that proved its address a member of its room that receives the room's
/// messages as datagrams.
///
/// A source address is unproven until it sends back the code the server offered it
/// (``DatagramProof``, ``AddressCookie``): until then every datagram is echoed and nothing
/// else of it is acted on, and what the server sends it besides the echo (the offer, the
/// auth refusal) stays within three times what it sent (``UnprovenSources``), so a forged
/// source address cannot turn the port into an amplifier toward the address's owner.
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
  /// The send budgets of addresses that have not proven themselves.
  private var unproven = UnprovenSources()
  /// Makes and checks the codes addresses prove themselves with.
  private let cookie = AddressCookie()
  /// `--max-udp-members` (nil: no cap).
  private let maxMembers: Int?
  /// The room a proven address joins (``ServerConfiguration/defaultRoom``).
  private let defaultRoom: String
  // Read on every datagram, so kept here: each read of `context.configuration` (or of
  // `context.core.configuration`) copies and destroys the whole configuration struct.
  /// The largest datagram accepted (`ServerConfiguration.maxDatagramSize`).
  private let maxDatagramSize: Int
  /// Whether the server checks tokens (the UDP port then answers every datagram with a refusal).
  private let checksTokens: Bool
  /// Whether an auth proxy admits members (the UDP port then answers every datagram with a
  /// refusal: a datagram carries no cookies or headers to ask about, and its source address
  /// can be forged).
  private let asksProxy: Bool

  init(socket: UDPSocket, context: LoopContext) {
    self.socket = socket
    self.context = context
    maxDatagramSize = context.configuration.maxDatagramSize
    checksTokens = context.configuration.tokenVerifier != nil
    asksProxy = context.configuration.authProxy != nil
    maxMembers = context.configuration.limits.maxUDPMembers
    defaultRoom = context.configuration.defaultRoom
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
    // One clock read a datagram: the rate limit, the member's last-seen time, the budgets.
    let now = Deadline.now()
    if sourceLimit?.admit(source: sender.ipAddress, now: now.nanoseconds) == false {
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
    if let member = members[sender] {
      member.lastSeen = now
      member.reply(UDPService.echoPrefix + " " + text)
      // Only a command is parsed twice (here and in `perform`); messages are not.
      if text.utf8.first == UInt8(ascii: "/"), case .prove = LineCommand.parse(text) {
        // A repeated proof (the first acceptance was lost, or a keepalive): the same answer.
        member.reply(DatagramProof.acceptance(room: context.hub.member(member.memberID)?.room ?? defaultRoom))
      } else {
        member.perform(line: text)
      }
      return
    }
    unproven.received(bytes.count, from: sender, now: now.nanoseconds)
    if checksTokens {
      // The UDP dialect takes no tokens: with auth on it is closed to chat (docs/SECURITY.md),
      // and there is nothing to prove an address for.
      answerUnproven(UDPService.authAnswer, to: sender)
      return
    }
    if asksProxy {
      answerUnproven(UDPService.authProxyAnswer, to: sender)
      return
    }
    // The seed's echo, whatever else happens: the seed apps read it (and it is not much
    // bigger than what it answers).
    send(SharedBytes(string: UDPService.echoPrefix + " " + text + "\n"), to: sender)
    switch LineCommand.parse(text) {
    case .prove(let code) where cookie.accepts(code, from: sender, now: now.nanoseconds):
      admit(sender, now: now)
    case .prove(let code):
      if !code.isEmpty { metrics.udp.proofsFailed.add(1, ordering: .relaxed) }
      offer(to: sender, now: now, asked: true)
    default:
      // Not published, not run: the address may be forged (docs/PROTOCOLS.md).
      offer(to: sender, now: now, asked: false)
    }
  }

  /// Sends `line` to an unproven address if its budget allows; counts it when not.
  private func answerUnproven(_ line: String, to address: SocketAddress, offerAt: UInt64? = nil) {
    let bytes = SharedBytes(string: line + "\n")
    if unproven.spend(bytes.count, on: address, offerAt: offerAt) {
      send(bytes, to: address)
    } else {
      context.metrics.udp.unprovenAnswersWithheld.add(1, ordering: .relaxed)
    }
  }

  /// Offers `address` its code: when it asked (`/ok`), or at most once a second otherwise.
  private func offer(to address: SocketAddress, now: Deadline, asked: Bool) {
    guard asked || unproven.offerDue(to: address, now: now.nanoseconds) else { return }
    let code = cookie.code(for: address, now: now.nanoseconds)
    answerUnproven(DatagramProof.offer(code: code), to: address, offerAt: now.nanoseconds)
  }

  /// Makes a proven address a member of the default room, unless `--max-udp-members` are.
  /// Both answers go out unmetered: the address has shown that it receives there.
  private func admit(_ address: SocketAddress, now: Deadline) {
    let metrics = context.metrics
    if let maxMembers, members.count >= maxMembers {
      metrics.udp.membersRefused.add(1, ordering: .relaxed)
      send(SharedBytes(string: "! " + UDPService.membersFullAnswer(maxMembers) + "\n"), to: address)
      return
    }
    unproven.forget(address)
    metrics.udp.proofs.add(1, ordering: .relaxed)
    let member = UDPMember(address: address, service: self)
    member.lastSeen = now
    members[address] = member
    metrics.udp.members.add(1, ordering: .relaxed)
    context.hub.join(
      member, shard: context.shard, name: "Client \(member.memberID.raw)", room: defaultRoom, announce: false)
    member.reply(DatagramProof.acceptance(room: defaultRoom))
  }

  func send(_ bytes: SharedBytes, to address: SocketAddress) {
    context.stats.udp.sent.add(bytes.count, ordering: .relaxed)
    socket.send(bytes, to: address)
  }

  func remove(_ member: UDPMember) {
    guard members.removeValue(forKey: member.address) != nil else { return }
    context.metrics.udp.members.subtract(1, ordering: .relaxed)
    context.hub.leave(member.memberID)
  }

  private func expireIdle() {
    let now = Deadline.now()
    sourceLimit?.sweep(now: now.nanoseconds)
    unproven.sweep(now: now.nanoseconds)
    let ttl = context.configuration.udpMemberTTL.nanoseconds
    for member in members.values where now.nanoseconds &- member.lastSeen.nanoseconds >= ttl {
      remove(member)
    }
  }

  /// What every answered datagram's echo starts with (the seed server's reply); a datagram
  /// that starts with it is another server's echo and is dropped, not answered.
  static let echoPrefix = "Server received:"
  /// The answer to every datagram when an auth proxy admits members (`--auth-proxy`).
  static let authProxyAnswer =
    "! authorization required: the UDP port is closed to chat behind an auth proxy (use tcp://, tls:// or ws://)"
  /// The answer to every datagram when the server checks tokens.
  static let authAnswer = "! authentication required: the UDP port takes no tokens (use tcp://, tls:// or ws:// with one)"

  /// The answer to a proof when the server has `limit` UDP members.
  static func membersFullAnswer(_ limit: Int) -> String {
    "too many UDP members (\(limit)); try again later, or use tcp:// or ws://"
  }

  /// Members currently known (for tests and metrics).
  var memberCount: Int { members.count }

  func close() {
    sweeper?.cancel()
    for member in Array(members.values) { remove(member) }
    socket.close()
  }
}
