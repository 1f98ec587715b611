import SwitchboardChat
import SwitchboardIO
import SwitchboardWire

/// A session's typing side (docs/PROTOCOLS.md, "Typing"): whether the member gets typing
/// events, its own typing state and the timer that expires it. A session holds one only
/// once the member sent a `features` frame, a `typing` frame or `/typing` (one optional
/// reference: a member that never uses typing pays 8 bytes and one branch per delivery).
/// Loop-confined, as its session.
final class MemberTyping {
  /// The member gets typing events (JSON `features` with `typing`, line `/typing on`).
  var receives = false
  /// The member's own state: rate limit and expiry.
  var state = TypingState()
  /// Ends the state ``TypingState/expiry`` after the last relayed start.
  var timer: Scheduled?
}

extension LoopContext {
  /// The member `id` signalled typing (`active`), or an end of it (`active` false from
  /// ``endTyping(_:member:)``): relays what ``TypingState`` decides, counts it, and arms
  /// the expiry timer, which runs on this loop.
  func signalTyping(_ typing: MemberTyping, member id: MemberID, active: Bool) {
    apply(typing.state.signal(active: active, now: ChatClock.milliseconds()), typing, member: id)
  }

  /// The member sent a message, leaves its room or disconnects: a shown start ends now.
  func endTyping(_ typing: MemberTyping?, member id: MemberID) {
    guard let typing, typing.state.isActive else { return }
    apply(typing.state.end(), typing, member: id)
  }

  private func apply(_ decision: TypingState.Decision, _ typing: MemberTyping, member id: MemberID) {
    switch decision {
    case .none:
      return
    case .dropped:
      metrics.typingDropped.add(1, ordering: .relaxed)
    case .relay(let active, let expiresAt):
      typing.timer?.cancel()
      typing.timer = nil
      if hub.publishTyping(from: id, active: active) != nil {
        metrics.typingEvents.add(1, ordering: .relaxed)
      }
      guard let expiresAt else { return }
      let delay = Duration.milliseconds(max(0, expiresAt - ChatClock.milliseconds()))
      typing.timer = loop.scheduleLocal(after: delay) { [weak self, weak typing] in
        guard let self, let typing else { return }
        typing.timer = nil
        self.apply(typing.state.expire(now: ChatClock.milliseconds()), typing, member: id)
      }
    }
  }
}

extension LineSession {
  /// `/typing` signals typing in the member's room (no answer: as a JSON `typing` frame);
  /// `/typing on|off` turns the member's `* NAME is typing` notices on or off, answered
  /// `* typing notices on|off`.
  func typingCommand(_ line: LineCommand.TypingLine) {
    let side: MemberTyping
    if let typing {
      side = typing
    } else {
      side = MemberTyping()
      typing = side
    }
    switch line {
    case .on, .off:
      side.receives = line == .on
      reply(side.receives ? "* typing notices on" : "* typing notices off")
    case .signal:
      guard roomCapabilities.contains(.publish), context.hub.member(memberID) != nil else { return }
      ensureAnnounced()
      context.signalTyping(side, member: memberID, active: true)
    }
  }
}
