extension TCPConnection {
  /// The flow control of a connection with a live socket, carried by every such
  /// ``Lifecycle`` state.
  struct Flow: Equatable {
    /// `false` from crossing the high-water mark until draining below the low one. Reading
    /// pauses meanwhile, so a peer that does not read cannot keep sending either.
    var isWritable = true
    /// The kernel refused part of the queue: the connection waits for writability (write
    /// interest) instead of flushing every iteration.
    var awaitingWritable = false
  }

  /// The directions a connection has closed before it closes whole. They never reopen.
  struct Ends: Equatable {
    /// What this side's output has done.
    enum Output: Int, Comparable {
      /// Open.
      case open
      /// ``TCPConnection/shutdownOutput()`` was called with output queued: the FIN goes
      /// once the queue drains.
      case shutdownAfterFlush
      /// Shut down (`shutdown(SHUT_WR)`, the FIN is sent).
      case shutDown

      static func < (a: Output, b: Output) -> Bool { a.rawValue < b.rawValue }
    }

    /// The peer ended its side (a read returned 0): nothing more to read.
    var inputEnded = false
    /// This side's output.
    var output = Output.open

    /// Nothing closed.
    static let none = Ends()

    /// Whether `self` has closed at least what `other` has.
    func covers(_ other: Ends) -> Bool {
      (inputEnded || !other.inputEnded) && output >= other.output
    }
  }

  /// Where a connection is in its life. One value instead of a row of flags, so that no
  /// two of them can disagree; ``TCPConnection`` changes it only through `move(to:)`, which
  /// checks the transition against ``allows(_:_:)`` and keeps the loop's interest in step
  /// with ``interest``.
  ///
  /// ```
  /// connecting ──connected──▶ open ──read EOF / shutdownOutput()──▶ halfClosed ⟲ (the other end)
  ///     │                      │                                      │
  ///     │                      └──close(), output queued──▶ closing ◀──┘ close(), output queued
  ///     ▼ connect failed                                      │ queue drained
  ///   closed ◀────────────────────────────────────────────────┘
  ///          ◀── also from any live state: reset(), close() with nothing queued, errors
  /// ```
  ///
  /// A plain value (no payload needs retaining), so that reading it on the write path costs
  /// a load and a branch; the getters the write path uses are `@inline(__always)` for the
  /// same reason (measured with callgrind the way docs/BENCHMARKS.md describes).
  ///
  /// What each state allows: `open` and `halfClosed` take writes; `open`, and `halfClosed`
  /// while input has not ended, read — both only while ``Flow/isWritable``; `closing` only
  /// flushes what is queued, then closes; `closed` does nothing (writes are dropped, no
  /// more callbacks).
  enum Lifecycle: CustomStringConvertible {
    /// `connect` is in progress (write interest).
    case connecting
    /// Reading and writing.
    case open(Flow)
    /// The peer ended its side and/or this side shut its output down (or will, once the
    /// queue drains). Never ``Ends/none``.
    case halfClosed(Flow, Ends)
    /// ``TCPConnection/close()`` was called with output queued: no reads, no new writes;
    /// the connection closes once the queue drains (shutting output down first if that
    /// was asked for). Keeps what was half-closed before.
    case closing(Flow, Ends)
    /// Closed: the descriptor is gone, the delegate released.
    case closed

    /// The flow control of a state with a live socket.
    @inline(__always)
    var flow: Flow? {
      switch self {
      case .open(let flow), .halfClosed(let flow, _), .closing(let flow, _): flow
      case .connecting, .closed: nil
      }
    }

    /// What a state with a live socket has half-closed (`open`: nothing).
    var ends: Ends? {
      switch self {
      case .open: Ends.none
      case .halfClosed(_, let ends), .closing(_, let ends): ends
      case .connecting, .closed: nil
      }
    }

    @inline(__always)
    var isClosed: Bool {
      if case .closed = self { true } else { false }
    }

    /// Whether new output is queued (`open`, `halfClosed`); other states drop it.
    var acceptsWrites: Bool { writerFlow != nil }

    /// The flow of a state that takes writes (`open`, `halfClosed`); one switch for the
    /// write path's checks.
    @inline(__always)
    var writerFlow: Flow? {
      switch self {
      case .open(let flow), .halfClosed(let flow, _): flow
      case .connecting, .closing, .closed: nil
      }
    }

    /// Whether reads happen: open (or with only the output shut down) and writable.
    var readsInput: Bool {
      switch self {
      case .open(let flow): flow.isWritable
      case .halfClosed(let flow, let ends): !ends.inputEnded && flow.isWritable
      case .connecting, .closing, .closed: false
      }
    }

    /// Whether queued output may be sent now: a live socket that does not wait for
    /// writability (not connecting, which waits for it too).
    @inline(__always)
    var canFlush: Bool {
      guard let flow else { return false }
      return !flow.awaitingWritable
    }

    /// Whether something waits for the queue to drain: a close, or a shutdown of output.
    @inline(__always)
    var waitsForDrain: Bool {
      switch self {
      case .closing: true
      case .halfClosed(_, let ends): ends.output == .shutdownAfterFlush
      case .connecting, .open, .closed: false
      }
    }

    /// Whether a drained queue leaves nothing to settle: writable, not waiting for the
    /// kernel, no close or shutdown waiting for the drain. The common case of a completed
    /// send, decided with one switch.
    @inline(__always)
    var idlesWhenDrained: Bool {
      switch self {
      case .open(let flow): flow.isWritable && !flow.awaitingWritable
      case .halfClosed(let flow, let ends):
        ends.output != .shutdownAfterFlush && flow.isWritable && !flow.awaitingWritable
      case .connecting, .closing, .closed: false
      }
    }

    /// What the loop should watch the descriptor for (`nil` once closed).
    var interest: Interest? {
      switch self {
      case .connecting: return .write
      case .closed: return nil
      case .open(let flow), .halfClosed(let flow, _), .closing(let flow, _):
        var interest: Interest = []
        if readsInput { interest.insert(.read) }
        if flow.awaitingWritable { interest.insert(.write) }
        return interest
      }
    }

    /// This live state with other ends and flow: `open` becomes `halfClosed` once
    /// something is closed, `closing` stays `closing`.
    func with(_ flow: Flow, _ ends: Ends) -> Lifecycle {
      switch self {
      case .open, .halfClosed: ends == .none ? .open(flow) : .halfClosed(flow, ends)
      case .closing: .closing(flow, ends)
      case .connecting, .closed: preconditionFailure("TCPConnection: \(self) has no flow to change")
      }
    }

    /// This live state with another flow.
    func with(_ flow: Flow) -> Lifecycle {
      with(flow, ends ?? .none)
    }

    /// Whether a connection may go from `from` to `to`: forward only — connecting → open
    /// or closed; open → halfClosed → closing → closed, any of them straight to closed;
    /// half-closed ends never reopen; the flow may change in any live state.
    static func allows(_ from: Lifecycle, _ to: Lifecycle) -> Bool {
      switch (from, to) {
      case (.connecting, .open(let flow)): return flow == Flow()
      case (.connecting, .closed): return true
      case (.connecting, _), (.closed, _), (_, .connecting): return false
      case (_, .closed): return true
      case (.open, .open), (.open, .halfClosed), (.open, .closing),
        (.halfClosed, .halfClosed), (.halfClosed, .closing), (.closing, .closing):
        guard let before = from.ends, let after = to.ends, after.covers(before) else { return false }
        if case .halfClosed = to { return after != .none }
        return true
      case (.halfClosed, .open), (.closing, .open), (.closing, .halfClosed):
        return false
      }
    }

    var description: String {
      func describe(_ flow: Flow, _ ends: Ends) -> String {
        var parts: [String] = []
        if ends.inputEnded { parts.append("input ended") }
        switch ends.output {
        case .open: break
        case .shutdownAfterFlush: parts.append("output shut down after flush")
        case .shutDown: parts.append("output shut down")
        }
        if !flow.isWritable { parts.append("unwritable") }
        if flow.awaitingWritable { parts.append("awaiting writability") }
        return parts.isEmpty ? "" : "(" + parts.joined(separator: ", ") + ")"
      }
      switch self {
      case .connecting: return "connecting"
      case .open(let flow): return "open" + describe(flow, .none)
      case .halfClosed(let flow, let ends): return "halfClosed" + describe(flow, ends)
      case .closing(let flow, let ends): return "closing" + describe(flow, ends)
      case .closed: return "closed"
      }
    }
  }
}
