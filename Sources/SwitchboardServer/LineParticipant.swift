import SwitchboardAuth
import SwitchboardChat
import SwitchboardIO
import SwitchboardWire

/// A member that speaks the line dialect (a TCP session or a UDP sender): the command
/// handling both share.
protocol LineParticipant: LocalMember {
  var context: LoopContext { get }
  /// Sends one line (notice, error, history) to this member only.
  func reply(_ line: String)
  /// Ends the membership (`/quit`).
  func quit()
  /// The accepted token's claims when the server checks tokens: the name is its `sub`, the
  /// rooms its `rooms`. `nil` (the default) when it checks none.
  var authClaims: TokenClaims? { get }
  /// What the member may do in its room (docs/SECURITY.md, "Capabilities"), resolved once
  /// per join by ``resolveCapabilities(in:)``. ``RoomCapabilities/all`` (the default)
  /// without tokens.
  var roomCapabilities: RoomCapabilities { get }
  /// Called before each join: resolves ``roomCapabilities`` for `room` (the default keeps all).
  func resolveCapabilities(in room: String)
  /// An `auth:` line after the first: a token refresh (docs/SECURITY.md, "Token refresh").
  func refresh(token: String)
  /// What the auth proxy admitted (`--auth-proxy`): the name is then fixed and the rooms
  /// limited to its answer's. `nil` (the default) without a proxy.
  var proxyGrant: AuthProxyGrant? { get }
  /// `/join ROOM` at the auth proxy's gate: `true` when the backend is being asked about it
  /// (the join happens once it allows). `false` (the default) to join as usual.
  func proxyTakes(join room: String) -> Bool
  /// The member's typing side (docs/PROTOCOLS.md, "Typing"), if it ever used `/typing`;
  /// `nil` (the default) for a member that cannot (UDP).
  var typing: MemberTyping? { get }
  /// `/typing`, `/typing on|off`. The default (UDP) answers as for an unknown command.
  func typingCommand(_ line: LineCommand.TypingLine)
}

extension LineParticipant {
  var authClaims: TokenClaims? { nil }
  var roomCapabilities: RoomCapabilities { .all }
  func resolveCapabilities(in room: String) {}

  /// A member that takes no tokens: the `auth:` line is answered and ignored.
  func refresh(token: String) {
    reply("* this server does not check tokens; auth: ignored")
  }

  /// `true` when the member may publish in its room; otherwise answers the refusal.
  private func mayPublish() -> Bool {
    if roomCapabilities.contains(.publish) { return true }
    reply("! " + SessionAuth.CapabilityAnswer.noPublish(context.hub.member(memberID)?.room ?? ""))
    return false
  }

  /// The server API's disconnect: `* disconnected by the server: REASON`, then the
  /// membership ends (a TCP or TLS connection closes once the line is out; a UDP sender is
  /// forgotten and joins again with its next datagram).
  func disconnect(reason: String) {
    reply(ServerDisconnect.line(reason: reason))
    quit()
  }
  var proxyGrant: AuthProxyGrant? { nil }
  func proxyTakes(join room: String) -> Bool { false }
  var typing: MemberTyping? { nil }
  func typingCommand(_ line: LineCommand.TypingLine) {
    reply("! unknown command /typing (try /help)")
  }

  /// The shared bytes of `event` in the line dialect, or `nil` when this member should
  /// not see it: its own messages and notices are not echoed, binary data has no line form.
  func lineBytes(for event: ChatEvent, cache: inout EncodingCache) -> SharedBytes? {
    // The line dialect never echoes what the member itself caused (the seed server did
    // not); replies to its own commands come through `reply`.
    if case .binary = event { return nil }
    if let origin = event.origin, origin == memberID { return nil }
    // Formatted once per shard (inside the cache), not once per member; an event with no
    // line form is cached as empty bytes.
    let bytes = cache.value(for: DialectSlot.line) {
      // A message's line is written straight into the shared bytes (no `String` of it):
      // copied in one pass when nothing in it needs an escape, else counted and escaped.
      if case .message(let m, _) = event {
        return SharedBytes(uninitializedCount: LineDialect.plainLineByteCount(m)) {
          LineDialect.writePlainLine(m, into: $0)
        }
          ?? SharedBytes(uninitializedCount: LineDialect.lineByteCount(m)) {
            LineDialect.writeLine(m, into: $0)
            return true
          } ?? SharedBytes([])
      }
      return SharedBytes(string: LineDialect.format(event).map { $0 + "\n" } ?? "")
    }
    return bytes.count == 0 ? nil : bytes
  }

  /// Joins the member's room as announced, if it was not yet (first message, or the
  /// name wait ran out).
  func ensureAnnounced() {
    context.hub.announce(memberID)
  }

  /// Handles one line of input.
  func perform(line text: String) {
    let hub = context.hub
    switch LineCommand.parse(text) {
    case .empty:
      return
    case .auth(let token):
      // Never published. With tokens on, the first line is the token (LineSession+Auth.swift)
      // and a later one a refresh.
      refresh(token: token)
    case .iam(let raw), .nick(let raw):
      // The hub's rule for every transport: a name no line of this member's can be
      // misread by (docs/PROTOCOLS.md, "Names and actions that read as notices").
      let name: String
      switch hub.admitName(raw) {
      case .success(let admitted): name = admitted
      case .failure(let refusal):
        reply("! " + refusal.answer)
        return
      }
      if proxyGrant != nil, name != hub.member(memberID)?.name {
        reply("! " + AuthProxyGrant.nameFixed)
        return
      }
      if let claims = authClaims, proxyGrant == nil,
        name != (hub.sanitizeName(claims.subject) ?? claims.subject)
      {
        reply("! " + SessionAuth.Answer.nameFixed)
        return
      }
      let wasAnnounced = hub.isAnnounced(memberID)
      // Without tokens a name taken in the room becomes `name (2)`; the member is told.
      let assigned = hub.rename(memberID, to: name) ?? name
      if !wasAnnounced { hub.announce(memberID) }
      let isNick: Bool
      if case .nick = LineCommand.parse(text) { isNick = true } else { isNick = false }
      // A rename (`/nick`, or `iam:` once the member was announced) is confirmed, as is a
      // name made unique; the first `iam:`, which only names the arrival, is not.
      if isNick || wasAnnounced || assigned != name { reply("* you are now \(LineDialect.escape(assigned))") }
    case .message(let body):
      guard mayPublish() else { return }
      ensureAnnounced()
      // A message ends the member's typing (one branch for a member that never typed).
      if let typing { context.endTyping(typing, member: memberID) }
      if hub.publish(from: memberID, text: body) {
        context.metrics.messagesPublished.add(1, ordering: .relaxed)
      }
    case .me(let action):
      // `* NAME has left` from a member would read as its leaving (and `is now`, a rename).
      if let refusal = LineDialect.actionRefusal(author: hub.member(memberID)?.name ?? "", action: action) {
        reply("! " + refusal.answer)
        return
      }
      guard mayPublish() else { return }
      ensureAnnounced()
      if let typing { context.endTyping(typing, member: memberID) }
      if hub.publish(from: memberID, text: action, isAction: true) {
        context.metrics.messagesPublished.add(1, ordering: .relaxed)
      }
    case .join(let room):
      if let grant = proxyGrant, !grant.allows(room: room) {
        reply("! " + SessionAuth.Answer.notAllowed(room))
        return
      }
      if let claims = authClaims, !claims.allows(room: room) {
        reply("! " + SessionAuth.Answer.notAllowed(room))
        return
      }
      if proxyTakes(join: room) { return }
      joinAsAsked(room)
    case .who:
      guard let me = hub.member(memberID) else { return }
      guard roomCapabilities.contains(.presence) else {
        reply("! " + SessionAuth.CapabilityAnswer.noPresence(me.room))
        return
      }
      // Every node's members (the broker adds the other nodes').
      hub.who(room: me.room, shard: context.shard) { [self] names in
        reply("* in \(me.room) (\(names.count)): \(names.map(LineDialect.escape).joined(separator: ", "))")
      }
    case .rooms:
      // With tokens, only the rooms this member's token lets it join.
      let claims = authClaims
      let rooms = hub.rooms().filter { claims?.allows(room: $0.name) ?? true }
        .map { "\(LineDialect.escape($0.name)) (\($0.members))" }
      reply("* rooms: \(rooms.joined(separator: ", "))")
    case .history(let n):
      guard let me = hub.member(memberID) else { return }
      guard roomCapabilities.contains(.history) else {
        reply("! " + SessionAuth.CapabilityAnswer.noHistory(me.room))
        return
      }
      replay(hub.history(room: me.room, last: n ?? 20), room: me.room)
    case .since(let id):
      guard let me = hub.member(memberID) else { return }
      guard roomCapabilities.contains(.history) else {
        reply("! " + SessionAuth.CapabilityAnswer.noHistory(me.room))
        return
      }
      hub.history(room: me.room, after: id, shard: context.shard) { [self] result in
        switch result {
        case .success(let messages): replay(messages, room: me.room)
        case .failure(let error):
          reply("! cannot read the history of \(me.room): \(LineDialect.escape("\(error)"))")
        }
      }
    case .help:
      for line in LineCommand.helpLines { reply("* " + line) }
    case .quit:
      reply("* bye")
      quit()
    case .typing(let line):
      typingCommand(line)
    case .prove:
      // The UDP port takes `/ok` before a line gets here (UDPService); a connection has
      // shown its address by completing the TCP handshake.
      reply("* /ok proves a UDP address; this connection needs no proof")
    case .invalid(let message):
      // It may quote the command (`/x` with a CR in it): one line all the same.
      reply("! " + LineDialect.escape(message))
    }
  }

  /// Joins `room` as `/join` asks (the checks of tokens and the auth proxy done): answered
  /// once the member is in.
  func joinAsAsked(_ room: String) {
    let hub = context.hub
    ensureAnnounced()
    guard let me = hub.member(memberID) else { return }
    if me.room == room {
      reply("* you are already in \(room)")
      return
    }
    // Typing in the room being left ends there.
    context.endTyping(typing, member: memberID)
    if let refusal = context.admitJoin(of: memberID, to: room) {
      reply("! " + refusal.message)
      return
    }
    resolveCapabilities(in: room)
    // The reply comes once the member is in (later, when the room was not open here).
    hub.join(self, shard: context.shard, name: me.name, room: room, announce: true) { [self] result in
      // A room still loading answers after the I/O of the loop's iteration, so a later
      // `/join` of an open room can be answered first: the earlier answer would then name
      // a room the member has left (and a client tracking its room would believe it).
      guard hub.member(memberID)?.room == result.room else { return }
      // The name asked for may be taken in the new room (or free again).
      if let now = hub.member(memberID)?.name, now != me.name {
        reply("* you are now \(LineDialect.escape(now))")
      }
      reply("* you are now in \(room) (\(result.members) member\(result.members == 1 ? "" : "s"))")
    }
  }

  /// Answers `/history` and `/since` with at most one slice of the messages
  /// (``HistoryReplay/sliceBytes``, at least one message): a longer answer ends with the
  /// command that continues it, so no answer costs more than one slice whatever was asked
  /// (docs/PROTOCOLS.md). The same bound holds for every line member, UDP included.
  private func replay(_ messages: [ChatMessage], room: String) {
    guard !messages.isEmpty else {
      reply("* no kept messages in \(room)")
      return
    }
    let end = HistoryReplay.sliceEnd(messages, from: 0)
    for m in messages[..<end] { reply(LineDialect.formatHistory(m)) }
    let last = messages[end - 1].id
    if end < messages.count {
      reply("* more history after id \(last) (\(end) of \(messages.count) messages sent): /since \(last)")
    } else {
      reply("* end of history (\(end) message\(end == 1 ? "" : "s"), last id \(last))")
    }
  }
}
