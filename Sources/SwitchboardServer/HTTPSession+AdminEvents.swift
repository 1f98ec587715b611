import SwitchboardChat
import SwitchboardHTTP
import SwitchboardIO
import SwitchboardWire

/// A connection streaming the admin console's live view (`GET /admin/events`): server-sent
/// events on a body that runs until the connection closes (no length, no chunking).
struct AdminStream {
  /// Where the stream stands.
  enum Stage {
    /// Its first snapshot is being built; it is not yet on the hub's tick.
    case starting
    /// On the tick: it gets every snapshot of its room.
    case live
  }

  /// The watched room, or `nil`.
  let room: String?
  /// The console session it belongs to: its end ends the stream.
  let session: String
  var stage: Stage
}

extension HTTPSession {
  /// How far a stream may fall behind, in bytes not yet taken by the kernel, before it is
  /// closed: a few seconds of snapshots.
  static let maxAdminStreamBacklog = 1 << 20

  /// Starts the stream for `session` (the request's `?room=` checked first: a bad name is
  /// answered 400 before anything is streamed).
  func startAdminStream(_ head: HTTPRequestHead, _ session: AdminSessionTable.Session) {
    var room: String?
    if let raw = head.query["room"] {
      guard let valid = RoomName.validate(raw) else {
        return respond(ServerAPIError.badRoom(raw).response, keepAlive: head.keepAlive)
      }
      room = valid
    }
    let head =
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
      + "Connection: close\r\nX-Content-Type-Options: nosniff\r\n\r\n"
    connection.write(Array(head.utf8))
    connection.write(AdminSnapshot.historyEvent(context))
    phase = .streaming(AdminStream(room: room, session: session.id, stage: .starting))
    context.adminStreams[ObjectIdentifier(self)] = self
    context.logger.info("admin stream opened", metadata: ["peer": adminPeer, "room": room ?? "-"])
    let me = LoopBound(self, on: context.loop)
    let rooms: [String: UInt64?] = room.map { [$0: nil] } ?? [:]
    AdminSnapshot.build(
      context, sample: AdminSnapshot.currentSample(context), rooms: rooms, bare: room == nil
    ) { built in
      me.value.adminStreamStarted(built)
    }
  }

  /// The first snapshot is built: sent, and the stream joins the tick.
  private func adminStreamStarted(_ built: AdminSnapshot.Built) {
    guard case .streaming(var stream) = phase, stream.stage == .starting else { return }
    stream.stage = .live
    phase = .streaming(stream)
    writeAdminSnapshot(built.frames[stream.room ?? ""])
    guard case .streaming = phase else { return }
    context.core.admin.events.watch(
      loop: context.loop.index, room: stream.room, lastID: stream.room.flatMap { built.lastIDs[$0] })
  }

  /// Writes a tick's snapshot for this stream's room, unless its session has ended (then an
  /// `end` event and the close) or it has fallen too far behind (closed).
  func deliverAdminSnapshot(_ frames: [String: [UInt8]]) {
    guard case .streaming(let stream) = phase, stream.stage == .live else { return }
    writeAdminSnapshot(frames[stream.room ?? ""])
  }

  private func writeAdminSnapshot(_ frame: [UInt8]?) {
    guard case .streaming(let stream) = phase else { return }
    guard context.core.admin.session(stream.session) != nil else {
      return endAdminStream(reason: "the session ended (logged out or expired)")
    }
    guard connection.bufferedBytes <= Self.maxAdminStreamBacklog else {
      context.logger.info("admin stream closed", metadata: ["peer": adminPeer, "reason": "too far behind"])
      return connection.close()
    }
    if let frame { connection.write(frame) }
  }

  /// Ends the stream with an `end` event naming `reason`.
  func endAdminStream(reason: String) {
    connection.write(AdminSnapshot.event("end", .object(["reason": .string(reason)])))
    connection.close()
  }

  /// The connection closed: the stream leaves the loop's table and the hub's tick.
  func adminStreamClosed() {
    guard case .streaming(let stream) = phase else { return }
    context.adminStreams[ObjectIdentifier(self)] = nil
    if stream.stage == .live {
      context.core.admin.events.unwatch(loop: context.loop.index, room: stream.room)
    }
    phase = .finished
  }
}
