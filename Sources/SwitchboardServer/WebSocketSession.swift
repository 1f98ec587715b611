import SwitchboardAuth
import SwitchboardChat
import SwitchboardHTTP
import SwitchboardIO
import SwitchboardTLS
import SwitchboardWebSocket
import SwitchboardWire

/// One WebSocket connection: the JSON chat protocol (`/`, `/rooms/NAME`), the raw text
/// dialect (`?format=text`), or the plain echo endpoint (`/echo`).
final class WebSocketSession: ByteStreamDelegate, LocalMember {
  enum Mode: Equatable {
    case json
    case text(notifySelf: Bool)
    case echo
  }

  let memberID: MemberID
  let connection: ByteStream
  // Safety: `unowned(unsafe)`, because the context is read on every received message and a
  // safe `unowned` read costs a retain and a release each time (docs/BENCHMARKS.md,
  // "Instructions per delivery"). It is sound because sessions run only on their loop's
  // thread while the loop runs, and `ChatServer.contexts` holds the context from before the
  // first connection until `shutdown` has stopped the loops; the deinit reads no context. A
  // strong reference would make a cycle through `context.sessions` that a loop stopping
  // with connections open never breaks.
  unowned(unsafe) let context: LoopContext
  let mode: Mode
  // The codec, the state and the limits are touched on every received message and delivery,
  // where a dynamic exclusivity check is a measurable cost (docs/BENCHMARKS.md,
  // "Instructions per delivery"). No access to them can overlap another: the session is
  // confined to its loop's thread and their mutating methods are pure state machines that
  // call back into nothing, so the checks are off for these three.
  /// The WebSocket protocol state machine.
  @exclusivity(unchecked) var protocolState: WebSocketConnection
  /// Echo or chat, in a room or not, named or not, and the peer's liveness: transitions are
  /// checked in ``WebSocketSessionState``. (Transitions that read the clock's components —
  /// opaque standard-library code — run on a copy: see `checkAlive`.)
  @exclusivity(unchecked) private var state: WebSocketSessionState
  /// Token state (docs/SECURITY.md; WebSocketSession+Auth.swift): `open` when the server
  /// checks none.
  var auth: SessionAuth
  /// The auth proxy's verdict (WebSocketSession+AuthProxy.swift): `off` without one.
  var proxy = AuthProxyState.off
  /// The rate limiters, idle and token timers, only when configured or needed
  /// (WebSocketSession+Limits.swift); `nil` for a session without limits. The keepalive is
  /// the loop's, not the session's (LoopContext+Keepalive.swift).
  @exclusivity(unchecked) var limitState: SessionLimitState?
  /// The history replay under way, if any (WebSocketSession+Replay.swift): while it is, the
  /// member's other output is held behind it.
  var replay: HistoryReplay?
  /// What the member may do in its room (docs/SECURITY.md, "Capabilities"), resolved at each
  /// join and refresh, not per message: all four without tokens. Read for every message the
  /// member sends: unchecked for the reason the state is (a plain value, loop-confined, no
  /// access to it overlapping another).
  @exclusivity(unchecked) var roomCapabilities = RoomCapabilities.all
  /// Typing (docs/PROTOCOLS.md, "Typing"): made when the member first sends `features` or
  /// `typing`; `nil` for a member that never does, which then gets no typing frame.
  var typing: MemberTyping?

  /// Validates the upgrade request and either answers it with an HTTP error or takes
  /// the connection over.
  /// - Returns: `true` when a session took the connection over; `false` when it was
  ///   answered with an error and is closing (its delegate is still the caller).
  @discardableResult
  static func start(
    connection: ByteStream, head: HTTPRequestHead, leftover: [UInt8], context: LoopContext
  ) -> Bool {
    if case .refused(let why) = context.configuration.originPolicy.check(
      origin: head.headers["Origin"], host: head.headers["Host"])
    {
      context.logger.info(
        "WebSocket upgrade refused", metadata: .connection(peer: connection.remoteAddress, error: why))
      reject(connection, .text(403, why + "\n"))
      return false
    }
    let path = head.path
    let query = head.query
    let mode: Mode
    var room = context.configuration.defaultRoom
    if path == "/echo" {
      mode = .echo
    } else if path == "/" || path.hasPrefix("/rooms/") {
      if path.hasPrefix("/rooms/") {
        let raw = path.dropFirst("/rooms/".count).removingURLPercentEncoding()
        guard let valid = RoomName.validate(raw) else {
          reject(connection, .text(400, "invalid room name (1-64 letters, digits, - _ .)\n"))
          return false
        }
        room = valid
        if let refusal = context.upgradeMayJoin(valid) {
          reject(connection, .text(503, refusal.message + "\n"))
          return false
        }
      }
      if query["format"] == "text" {
        let notify = ["1", "true", "yes"].contains(query["notify_self"]?.lowercased() ?? "")
        mode = .text(notifySelf: notify)
      } else if let format = query["format"], format != "json" {
        reject(connection, .text(400, "unknown format \(format) (json or text)\n"))
        return false
      } else {
        mode = .json
      }
    } else {
      reject(connection, .text(404, "no WebSocket endpoint at \(path) (try /, /rooms/NAME or /echo)\n"))
      return false
    }
    let options = WebSocketHandshake.ServerOptions(deflate: PerMessageDeflate.Parameters())
    switch WebSocketHandshake.serverResponse(to: head, options: options) {
    case .reject(let response, let reason):
      context.logger.debug(
        "WebSocket upgrade refused", metadata: .connection(peer: connection.remoteAddress, error: reason))
      reject(connection, response)
      return false
    case .accept(let accept):
      // Sent at once: an idle connection then keeps no write queue's storage (its only
      // output so far).
      connection.writeAtOnce(SharedBytes(accept.responseBytes))
      let session = WebSocketSession(
        connection: connection, mode: mode, deflate: accept.deflate, context: context)
      session.begin(room: room, query: query, token: token(in: head), explicitRoom: path != "/", head: head)
      if !leftover.isEmpty { leftover.withUnsafeBytes { session.feed($0) } }
      return true
    }
  }

  private static func reject(_ connection: ByteStream, _ response: HTTPResponse) {
    var r = response
    r.headers.replaceOrAdd(name: "Connection", value: "close")
    connection.write(r.encode())
    connection.close()
  }

  private init(
    connection: ByteStream, mode: Mode, deflate: PerMessageDeflate.Parameters?, context: LoopContext
  ) {
    self.connection = connection
    self.context = context
    self.mode = mode
    self.state = WebSocketSessionState(echo: mode == .echo, now: Deadline.now())
    self.auth = SessionAuth(verifier: context.configuration.tokenVerifier)
    self.memberID = context.hub.nextMemberID(transport: connection.isTLS ? "wss" : "ws")
    let limit = context.configuration.maxMessageSize
    // A compressed frame can be larger than the message it carries (incompressible data
    // deflated in small blocks: +0.25% with websockets' memLevel 5, up to a few % with
    // tiny ones), so with permessage-deflate the frame limit has some slack; the message
    // limit is still enforced exactly, after decompression.
    let frameLimit = deflate == nil ? limit : limit + limit / 16 + 1024
    self.protocolState = WebSocketConnection(
      role: .server, configuration: WebSocketConfiguration(maxFrameSize: frameLimit, maxMessageSize: limit),
      deflate: deflate)
    connection.limits.maximumBuffered = max(context.configuration.maxBufferedPerConnection, 2 * limit + 65536)
    connection.byteCounter = context.stats.webSocket
    connection.limits.farewellTime = context.configuration.slowConsumerFarewellTime
    connection.attach(self)
    limitState = SessionLimitState.make(for: context.configuration.limits, now: Deadline.now())
    context.sessions[memberID] = self
    context.webSocketOpened()
    context.metrics.webSocketOpen.add(1, ordering: .relaxed)
    context.metrics.connectionsOpen.add(1, .webSocket(tls: connection.isTLS))
  }

  private func begin(
    room: String, query: [String: String], token: String?, explicitRoom: Bool, head: HTTPRequestHead
  ) {
    if let idle = context.configuration.limits.idleTimeout { armIdle(after: idle) }
    guard let room = admit(token: token, room: room, explicit: explicitRoom), mode != .echo else { return }
    // Kept only now that the token (if any) was accepted; refused here only when the cap
    // filled since the upgrade was answered.
    if let refusal = context.admitRoom(room) {
      refuse(code: refusal.code, answer: refusal.message)
      return
    }
    var since: UInt64? = nil
    let epoch = query["epoch"]
    if let raw = query["since"] {
      if let k = UInt64(raw) {
        since = k
      } else {
        sendText(JSONDialect.error(code: "invalid_data", message: "since must be a non-negative integer"))
      }
    }
    // With an auth proxy, the backend decides before the member joins.
    if context.core.authProxy != nil {
      beginProxy(target: AuthProxyTarget(room: room, since: since, epoch: epoch), head: head, query: query)
      return
    }
    joinRoom(room, since: since, epoch: epoch)
    if let claims = auth.claims { setName(context.hub.sanitizeName(claims.subject) ?? claims.subject) }
    if let name = query["name"], let clean = admitName(name) { setName(clean) }
  }

  // MARK: Input

  func stream(_ connection: ByteStream, didRead bytes: UnsafeRawBufferPointer) {
    feed(bytes)
  }

  /// A plaintext connection's reads, straight to ``feed(_:)``: the default (through
  /// ``stream(_:didRead:)``) costs a call more per read on the hot path.
  func connection(_ connection: TCPConnection, didRead bytes: UnsafeRawBufferPointer) {
    feed(bytes)
  }

  private func feed(_ bytes: UnsafeRawBufferPointer) {
    guard state.heard(at: context.loop.eventTime) else { return }
    // One action at a time, each carried out before the next frame is decoded: an echo or
    // reply is queued before the close frame of a protocol error later in the same read.
    protocolState.append(bytes)
    while let input = nextInput() {
      // Closed meanwhile (flooding, idle): the rest of this read is not handled or judged.
      if state.isFinished { return }
      let action: WebSocketAction
      switch input {
      case .receivedText(let range):
        publishReceived(range)
        continue
      case .action(let next):
        action = next
      }
      switch action {
      case .send(let frame):
        write(frame)
      case .text(let text):
        guard limitState == nil || admitMessage(bytes: text.utf8.count) else { continue }
        handleText(text)
      case .binary(let data):
        guard limitState == nil || admitMessage(bytes: data.count) else { continue }
        handleBinary(data)
      case .ping, .pong:
        break
      case .close:
        finish()
        if protocolState.hasFailed {
          lingerClose()
        } else {
          connection.close()
        }
        return
      }
    }
  }

  /// The next input: in chat, a whole text message stays in the receive buffer
  /// (``WebSocketConnection/Input/receivedText(_:)``) and its text is copied from there
  /// into the chat message; echo needs the text as a `String`.
  private func nextInput() -> WebSocketConnection.Input? {
    if case .echo = mode { return protocolState.nextAction().map(WebSocketConnection.Input.action) }
    return protocolState.nextInput()
  }

  /// Publishes a chat message straight from the receive buffer: the text dialect's whole
  /// frame, or the text of the JSON protocol's canonical message frame
  /// (``ClientFrame/canonicalMessageParts(_:)``). Any other JSON frame is read as a
  /// `String`, as ``handleText(_:)`` reads it.
  private func publishReceived(_ range: Range<Int>) {
    guard limitState == nil || admitMessage(bytes: range.count) else { return }
    if proxy.intercepts {
      proxyTakes(.text(protocolState.withReceivedText(range) { String(decoding: $0, as: UTF8.self) }))
      return
    }
    var text = 0..<range.count
    var ref: String? = nil
    var textNeedsNoJSONEscape = false
    if case .json = mode {
      let canonical = protocolState.withReceivedText(range) {
        ClientFrame.canonicalMessageParts($0.assumingMemoryBound(to: UInt8.self))
      }
      guard let parts = canonical else {
        handleText(protocolState.withReceivedText(range) { String(decoding: $0, as: UTF8.self) })
        return
      }
      text = parts.text
      textNeedsNoJSONEscape = parts.textNeedsNoJSONEscape
      ref = parts.ref.map { r in
        protocolState.withReceivedText(range) { String(decoding: $0[r], as: UTF8.self) }
      }
    }
    // An empty message is not published, as an empty line is not; a JSON one is answered.
    // (The check stops at the first byte that is not a space: almost always the first.)
    if protocolState.withReceivedText(range, { $0[text].allSatisfy { $0 == 0x20 || $0 == 0x09 } }) {
      if case .json = mode {
        sendText(JSONDialect.error(code: "invalid_data", message: "a message needs text", ref: ref))
      }
      return
    }
    ensureNamed()
    // Nothing in here touches the protocol state the bytes are lent from.
    protocolState.withReceivedText(range) {
      publishNamed(
        UnsafeRawBufferPointer(rebasing: $0[text]), textNeedsNoJSONEscape: textNeedsNoJSONEscape, ref: ref)
    }
  }

  /// After failing the connection: the close frame and everything before it leave first,
  /// then a FIN; the socket closes when the peer's FIN arrives, or after a grace time. A
  /// close with the peer's bytes unread would make the kernel send a reset, which can
  /// destroy the replies still in flight at the peer's end.
  private func lingerClose() {
    let connection = self.connection
    connection.shutdownOutput()
    _ = context.loop.scheduleLocal(after: RefusedConnection.graceTime) { connection.close() }
  }

  func handleText(_ text: String) {
    if proxy.intercepts {
      proxyTakes(.text(text))
      return
    }
    switch mode {
    case .echo:
      if let frame = protocolState.sendText(text) { write(frame) }
    case .text:
      publish(text, ref: nil)
    case .json:
      // The limit the protocol state was made with (the server's `maxMessageSize`), read in
      // the session: `context.configuration` copies the whole configuration struct.
      switch ClientFrame.parse(text, maxLength: protocolState.configuration.maxMessageSize) {
      case .plain(let body):
        if auth.firstPlainFrameIsName(body) { return }
        if !state.isNamed {
          switch context.hub.admitName(body) {
          case .success(let name): setName(name)
          case .failure(.empty): publish(body, ref: nil)
          case .failure(let refusal):
            // Named `Client N` instead, so the next frame is a message, not another try.
            refuseName(refusal)
            ensureNamed()
          }
        } else {
          publish(body, ref: nil)
        }
      case .message(let body, let ref) where Self.isBlank(body),
        .action(let body, let ref) where Self.isBlank(body):
        // As an empty line on the line dialect, nothing is published; the sender is told,
        // with its ref, so that a send waiting for its `ack` ends.
        sendText(JSONDialect.error(code: "invalid_data", message: "a message needs text", ref: ref))
      case .message(let body, let ref):
        publish(body, ref: ref)
      case .action(let body, let ref):
        // As the line dialect's `/me`: an action that would read as presence is refused.
        ensureNamed()
        if let refusal = LineDialect.actionRefusal(
          author: context.hub.member(memberID)?.name ?? "", action: body)
        {
          sendText(JSONDialect.error(code: "invalid_action", message: refusal.answer, ref: ref))
          return
        }
        publish(body, ref: ref, isAction: true)
      case .join(let name, let room, let since, let epoch):
        if let name, let clean = admitName(name) { setName(clean) }
        if let room, !auth.mayJoin(room) || !(proxy.grant?.allows(room: room) ?? true) {
          sendText(JSONDialect.error(code: "room_forbidden", message: SessionAuth.Answer.notAllowed(room)))
        } else if let room, let refusal = context.admitJoin(of: memberID, to: room) {
          sendText(JSONDialect.error(code: refusal.code, message: refusal.message))
        } else if let room, proxyTakes(join: AuthProxyTarget(room: room, since: since, epoch: epoch)) {
          // Joined once the auth proxy allows it (WebSocketSession+AuthProxy.swift).
        } else if room != nil || since != nil || epoch != nil {
          joinRoom(
            room ?? context.hub.member(memberID)?.room ?? context.configuration.defaultRoom, since: since,
            epoch: epoch)
        }
      case .who:
        // As the line dialect's `/who`: every node's members (the broker adds the others').
        guard let room = context.hub.member(memberID)?.room else { return }
        guard roomCapabilities.contains(.presence) else {
          refuseCapability("presence_forbidden", SessionAuth.CapabilityAnswer.noPresence, ref: nil)
          return
        }
        context.hub.who(room: room, shard: context.shard) { [self] names in
          sendText(JSONDialect.members(room: room, names: names))
        }
      case .rooms:
        // As the line dialect's `/rooms`: with tokens, only the rooms the token allows.
        let claims = auth.claims
        sendText(JSONDialect.rooms(context.hub.rooms().filter { claims?.allows(room: $0.name) ?? true }))
      case .history(let limit):
        // As the line dialect's `/history N`; a view for the client, not a resume point.
        guard roomCapabilities.contains(.history) else {
          refuseCapability("history_forbidden", SessionAuth.CapabilityAnswer.noHistory, ref: nil)
          return
        }
        answerHistoryRequest(limit: limit)
      case .refresh(let token):
        refresh(token: token)
      case .features(let names):
        let enabled = ProtocolFeature.known(names)
        let receives = enabled.contains(.typing)
        if receives || typing != nil { typingSide().receives = receives }
        sendText(JSONDialect.features(enabled: enabled))
      case .typing(let active):
        // Nothing for a member in no room, or one that may not publish there: no error
        // frame, a typing signal is harmless (docs/BAD-INPUT.md).
        guard state.isInRoom, roomCapabilities.contains(.publish) else { return }
        context.signalTyping(typingSide(), member: memberID, active: active)
      case .invalid(let code, let message):
        sendText(JSONDialect.error(code: code, message: message))
      }
    }
  }

  func handleBinary(_ data: [UInt8]) {
    if proxy.intercepts {
      proxyTakes(.binary(data))
      return
    }
    switch mode {
    case .echo:
      if let frame = protocolState.sendBinary(data) { write(frame) }
    case .json, .text:
      ensureNamed()
      guard roomCapabilities.contains(.publish) else {
        refuseCapability("publish_forbidden", SessionAuth.CapabilityAnswer.noPublish, ref: nil)
        return
      }
      context.hub.publishBinary(from: memberID, bytes: data)
    }
  }

  /// Nothing but spaces and tabs, as the line dialect's empty line (``LineCommand/empty``).
  static func isBlank(_ text: String) -> Bool { text.utf8.allSatisfy { $0 == 0x20 || $0 == 0x09 } }

  private func publish(_ text: String, ref: String?, isAction: Bool = false) {
    // A plain or text-dialect frame with no text: ignored, as an empty line is.
    if Self.isBlank(text) { return }
    ensureNamed()
    var text = text
    text.withUTF8 { publishNamed(UnsafeRawBufferPointer($0), ref: ref, isAction: isAction) }
  }

  /// Publishes `text` (UTF-8) from this named member, with the `ack` of its `ref`, if any,
  /// to follow. Touches neither the protocol state nor the session's state.
  /// `textNeedsNoJSONEscape`: see ``ChatMessage/textNeedsNoJSONEscape``.
  private func publishNamed(
    _ text: UnsafeRawBufferPointer, textNeedsNoJSONEscape: Bool = false, ref: String?, isAction: Bool = false
  ) {
    guard roomCapabilities.contains(.publish) else {
      refuseCapability("publish_forbidden", SessionAuth.CapabilityAnswer.noPublish, ref: ref)
      return
    }
    // A message ends the member's typing (one branch for a member that never typed).
    if let typing { context.endTyping(typing, member: memberID) }
    guard let ref else {
      if context.hub.publish(
        from: memberID, validatedUTF8: text, textNeedsNoJSONEscape: textNeedsNoJSONEscape, isAction: isAction)
      {
        context.metrics.messagesPublished.add(1, ordering: .relaxed)
      }
      return
    }
    // The ack goes out once the broker kept the message; the completion runs on this
    // loop and reaches the session only if it is still open (a closed one has left the
    // loop's table).
    let memberID = self.memberID
    let boundContext = LoopBound(context, on: context.loop)
    let accepted = context.hub.publish(
      from: memberID, validatedUTF8: text, textNeedsNoJSONEscape: textNeedsNoJSONEscape, isAction: isAction,
      ref: ref,
      subject: auth.claims?.subject, address: connection.remoteAddress?.ipAddress
    ) {
      result in
      guard let session = boundContext.value.sessions[memberID] as? WebSocketSession else { return }
      switch result {
      case .success(let receipt):
        session.sendText(JSONDialect.ack(ref: ref, id: receipt.id))
      case .failure(let error):
        let which = error.messageID.map { "message \($0)" } ?? "the message"
        // The ref names the send that failed, except when the server is stopping: that
        // client resends (or finds the message in the history) after it reconnects.
        session.sendText(
          JSONDialect.error(
            code: "not_stored", message: "\(which) was not stored: \(error)",
            ref: error == .closed ? nil : ref))
      }
    }
    if accepted { context.metrics.messagesPublished.add(1, ordering: .relaxed) }
  }

  func joinRoom(_ room: String, since: UInt64?, epoch: String? = nil) {
    let announce: Bool
    switch state.join() {
    case .join: announce = false
    case .joinAnnounced: announce = true
    case .ignore: return
    }
    // Typing in the room being left ends there.
    context.endTyping(typing, member: memberID)
    let name = context.hub.member(memberID)?.name ?? "Client \(memberID.raw)"
    roomCapabilities = auth.capabilities(in: room)
    // Without `history` there, no replay: neither the recent messages nor those after `since`.
    let mayReplay = roomCapabilities.contains(.history)
    // At once when the room is open here; after the broker loaded it otherwise (and
    // before any of its live messages).
    context.hub.join(
      self, shard: context.shard, name: name, room: room, announce: announce, since: mayReplay ? since : nil,
      epoch: epoch, historyCount: mayReplay ? context.configuration.historyOnJoin : 0
    ) { [self] result in
      // A join's answer can come after a later join's: a room still loading answers from a
      // task of the loop, after the I/O of its iteration, an open room at once. So a
      // `join` frame read in that iteration (the URL's room, `lobby` for `/`, still loading)
      // is answered first, and the earlier answer must not start its replay then: it would
      // cut the later room's replay short after its first slice and show a room the member
      // has left. Only the answer for the room the member is in now replays.
      guard mode == .json, context.hub.member(memberID)?.room == result.room else { return }
      // A named member moving to a room where its name is taken (or free again) is told.
      if announce, let now = context.hub.member(memberID)?.name, now != name {
        sendText(JSONDialect.name(now))
      }
      startReplay(HistoryReplay(result.history, epoch: result.epoch, recovered: result.complete))
    }
  }

  /// Names the member; `decided` when the auth proxy's admission sets the name, which no later
  /// name can change.
  func setName(_ name: String, decided: Bool = false) {
    let hub = context.hub
    if !decided, proxy.grant != nil, name != hub.member(memberID)?.name {
      if mode == .json { sendText(JSONDialect.error(code: "name_fixed", message: AuthProxyGrant.nameFixed)) }
      return
    }
    guard decided || auth.mayTake(name: name) else {
      if mode == .json {
        sendText(JSONDialect.error(code: "name_fixed", message: SessionAuth.Answer.nameFixed))
      }
      return
    }
    let action = state.name()
    guard action != .ignore else { return }
    let assigned = hub.rename(memberID, to: name) ?? name
    if action == .announce {
      hub.announce(memberID)
      if mode == .json, let color = hub.member(memberID)?.color { sendText(JSONDialect.color(color)) }
    }
    // The name the member has now (`alice (2)` when `alice` is taken in the room).
    if mode == .json { sendText(JSONDialect.name(assigned)) }
  }

  /// `raw` as the hub admits it (``ChatHub/admitName(_:)``); a refused name is answered
  /// with an `invalid_name` error (nothing visible in it: ignored, as before).
  func admitName(_ raw: String) -> String? {
    switch context.hub.admitName(raw) {
    case .success(let name): return name
    case .failure(.empty): return nil
    case .failure(let refusal):
      refuseName(refusal)
      return nil
    }
  }

  func refuseName(_ refusal: NameRefusal) {
    if mode == .json { sendText(JSONDialect.error(code: "invalid_name", message: refusal.answer)) }
  }

  private func ensureNamed() {
    guard !state.isNamed else { return }
    setName(context.hub.member(memberID)?.name ?? "Client \(memberID.raw)")
  }

  // MARK: Output

  func receive(_ event: ChatEvent, cache: inout EncodingCache) {
    guard !state.isFinished else { return }
    switch mode {
    case .echo:
      return
    case .json:
      switch event {
      case .binary(_, _, let origin):
        guard origin != memberID else { return }
        writeBinary(event, cache: &cache)
      case .shutdown(let reason):
        goAway(reason)
      case .presence where !roomCapabilities.contains(.presence):
        // Without `presence` in its room the member gets no presence frames.
        return
      case .typing(_, let origin) where origin == memberID || typing?.receives != true:
        // Only to members that enabled `typing`, never back to the typing member.
        return
      default:
        // Encoded once per shard inside the cache, not once per member, and borrowed from
        // it (`withValue`): no retain and release per member.
        let now = cache.sendNow
        cache.withValue(for: DialectSlot.json) {
          JSONDialect.webSocketFrame(event)
        } _: {
          deliver($0, immediately: now)
        }
      }
    case .text(let notifySelf):
      switch event {
      case .message(_, let origin):
        // Only the origin is bound here: binding the message would copy (retain) its
        // strings for every member; the text is read once, inside the cache.
        guard origin != memberID || notifySelf else { return }
        // Borrowed from the cache (`withValue`): no retain and release per member.
        let now = cache.sendNow
        cache.withValue(for: DialectSlot.text) {
          guard case .message(let m, _) = event else { return SharedBytes([]) }
          // Built on the stack and copied once into the bytes every member shares.
          return m.withTextUTF8 {
            WebSocketConnection.withServerFrame(
              textUTF8: UnsafeRawBufferPointer($0), SharedBytes.init(copying:))
          }
        } _: {
          connection.write($0, immediately: now)
        }
      case .binary(_, _, let origin):
        guard origin != memberID else { return }
        writeBinary(event, cache: &cache)
      case .shutdown(let reason):
        goAway(reason)
      case .presence, .epochChanged, .typing:
        return
      }
    }
  }

  /// A batch of the room's messages (``MessageBatch``): their frames back to back, encoded
  /// once per shard and written with one call. A text-dialect member without
  /// `notify_self` that sent some of them is written the frames around its own.
  func receive(_ batch: inout MessageBatch) {
    guard !state.isFinished else { return }
    let now = batch.cache.sendNow
    switch mode {
    case .echo:
      return
    case .json:
      batch.withValue(for: DialectSlot.json, JSONDialect.webSocketFrames) { deliver($0, immediately: now) }
    case .text(let notifySelf):
      guard !notifySelf, batch.contains(origin: memberID) else {
        batch.withValue(for: DialectSlot.text, Self.textFrames) { connection.write($0, immediately: now) }
        return
      }
      let messages = batch.messages
      let id = memberID
      batch.withValue(for: DialectSlot.text, Self.textFrames) { frames in
        // Runs of the others' frames, in order: where one starts, and where the frames are.
        var start = 0
        var offset = 0
        for message in messages {
          let size = WebSocketConnection.serverFrameCount(payloadCount: message.message.textUTF8Count)
          if message.isFrom(id) {
            if offset > start {
              connection.write(frames, offset: start, count: offset - start, immediately: false)
            }
            start = offset + size
          }
          offset += size
        }
        if offset > start { connection.write(frames, offset: start, count: offset - start, immediately: now) }
      }
    }
  }

  /// Every message's text frame, back to back, in one `SharedBytes`.
  static func textFrames(_ messages: UnsafeBufferPointer<BatchedMessage>) -> SharedBytes {
    BatchFrames.text(count: messages.count) {
      (messages[$0].message.textUTF8Count, ())
    } writePayload: { i, _, payload in
      messages[i].message.withTextUTF8 { utf8 in
        if utf8.count > 0 { payload.copyMemory(from: UnsafeRawBufferPointer(utf8)) }
      }
      return true
    }!
  }

  /// Writes the binary frame of a `.binary` event, encoded once per shard and borrowed
  /// from the cache.
  private func writeBinary(_ event: ChatEvent, cache: inout EncodingCache) {
    let now = cache.sendNow
    cache.withValue(for: DialectSlot.binary) {
      guard case .binary(_, let bytes, _) = event else { return SharedBytes([]) }
      return WebSocketConnection.withServerFrame(binary: bytes, SharedBytes.init(copying:))
    } _: {
      deliver($0, immediately: now)
    }
  }

  /// Queues a frame with one bulk copy (see ``shared(_:)``).
  private func write(_ frame: [UInt8]) {
    connection.write(Self.shared(frame))
  }

  /// `SharedBytes(copying:)` is one memcpy; the generic `SharedBytes(_:)` (and so
  /// `TCPConnection.write(_: [UInt8])`) copies byte by byte in debug builds, seconds for a
  /// 16 MiB frame.
  private static func shared(_ frame: [UInt8]) -> SharedBytes {
    frame.withUnsafeBytes { SharedBytes(copying: $0) }
  }

  /// Sends a reply (behind the history replay under way, if any).
  func sendText(_ text: String) {
    guard !state.isFinished, let frame = protocolState.sendText(text) else { return }
    deliver(Self.shared(frame), immediately: false)
  }

  /// Sends `text` now, ahead of anything a replay holds: the replay's own slices.
  func sendTextNow(_ text: String) {
    guard !state.isFinished, let frame = protocolState.sendText(text) else { return }
    write(frame)
  }

  /// Queues `bytes` for the member, or, while a replay is under way, holds them for after
  /// it (``HistoryReplay``): a member never sees a live message before the history it
  /// follows.
  @inline(__always)
  private func deliver(_ bytes: SharedBytes, immediately: Bool) {
    // A nil test only: binding the replay would retain it on every delivery of a fan-out.
    if _fastPath(replay == nil) { return connection.write(bytes, immediately: immediately) }
    holdBehindReplay(bytes)
  }

  @inline(never)
  private func holdBehindReplay(_ bytes: SharedBytes) {
    guard let replay else { return }
    if !replay.hold(bytes, limit: connection.limits.maximumBuffered) { dropAsTooSlow() }
  }

  /// More output held behind a replay than the connection may buffer: the member is a slow
  /// consumer, closed as the connection would close it (1008 "slow consumer", counted).
  func dropAsTooSlow() {
    replay = nil
    context.reportSlowConsumer(connection, member: memberID, dialect: "websocket")
    if let frame = protocolState.close(code: .policyViolation, reason: "slow consumer") { write(frame) }
    finish()
    lingerClose()
  }

  /// The server API's disconnect: closed with ``ServerDisconnect/closeCode`` and the reason
  /// (docs/PROTOCOLS.md, "Disconnected by the server").
  func disconnect(reason: String) {
    guard !state.isFinished else { return }
    let frame = protocolState.close(
      code: ServerDisconnect.closeCode, reason: ServerDisconnect.closeReason(reason))
    if let frame { write(frame) }
    finish()
    connection.close()
  }

  private func goAway(_ reason: String) {
    if let frame = protocolState.close(code: .goingAway, reason: String(reason.prefix(100))) { write(frame) }
    finish()
    connection.close()
  }

  /// Notes a data message for `--idle-timeout` (pings and pongs do not count) and applies
  /// `--max-message-rate` and `--max-byte-rate` (see WebSocketSession+Limits.swift): a
  /// refused message is answered with an error, persistent excess closes with 1008 "rate
  /// limit" (or "byte rate limit").
  private func admitMessage(bytes: Int) -> Bool {
    let (verdict, unit) = judgeMessage(bytes: bytes)
    switch verdict {
    case .accept:
      return true
    case .refuse:
      let text = unit.refusal(limit: unit.limit(in: context.configuration.limits))
      sendText(mode == .json ? JSONDialect.error(code: "rate_limited", message: text) : "! " + text)
      return false
    case .close:
      if let frame = protocolState.close(code: .policyViolation, reason: unit.closeReason) { write(frame) }
      finish()
      lingerClose()
      return false
    }
  }

  // MARK: Liveness

  /// The loop's keepalive tick (LoopContext+Keepalive.swift) for this session.
  func checkAlive() {
    // On a copy: the tick reads `Duration.components` (opaque, in the standard library),
    // which must not run inside an access to `state` (see `state`).
    var next = state
    let action = next.keepaliveTick(
      now: Deadline.now(), interval: context.configuration.webSocketPingInterval)
    state = next
    switch action {
    case .none:
      break
    case .ping:
      if let frame = protocolState.ping(Array("sb".utf8)) { write(frame) }
    case .drop:
      // A ping went unanswered for a whole interval: the peer is gone.
      context.logger.debug(
        "closing: no answer to a ping",
        metadata: .connection(peer: connection.remoteAddress, member: memberID, dialect: "websocket"))
      finish()
      connection.reset()
    }
  }

  // MARK: Closing

  func streamDidReadEOF(_ connection: ByteStream) {
    finish()
    connection.close()
  }

  /// The slow-consumer contract (docs/BAD-INPUT.md): counted and logged once, out of the
  /// room at once, and closed with 1008 "slow consumer" ahead of the dropped backlog.
  func streamIsTooSlow(_ connection: ByteStream) -> SharedBytes? {
    context.reportSlowConsumer(connection, member: memberID, dialect: "websocket")
    let frame = protocolState.close(code: .policyViolation, reason: "slow consumer")
    finish()
    return frame.map(Self.shared)
  }

  func stream(_ connection: ByteStream, didCloseWith error: ByteStreamError?) {
    finish()
    context.sessions[memberID] = nil
    context.webSocketClosed()
    context.metrics.webSocketOpen.subtract(1, ordering: .relaxed)
    context.metrics.connectionsOpen.add(-1, .webSocket(tls: connection.isTLS))
    context.connectionClosed(connection)
  }

  func finish() {
    guard case .stop(let leaveRoom) = state.finish() else { return }
    replay = nil
    limitState?.cancelTimers()
    proxy.close()
    if let typing {
      context.endTyping(typing, member: memberID)
      typing.timer?.cancel()
    }
    if leaveRoom { context.hub.leave(memberID) }
  }

  /// The session's typing side, made on first use.
  private func typingSide() -> MemberTyping {
    if let typing { return typing }
    let made = MemberTyping()
    typing = made
    return made
  }
}
