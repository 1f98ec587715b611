import Testing

@testable import SwitchboardIO

/// `TCPConnection.Lifecycle` without a socket: which transitions are allowed, and what each
/// state reads, writes and watches for.
@Suite struct TCPConnectionLifecycleTests {
  typealias Lifecycle = TCPConnection.Lifecycle
  typealias Flow = TCPConnection.Flow
  typealias Ends = TCPConnection.Ends

  static let inputEnded = Ends(inputEnded: true, output: .open)
  static let outputShutDown = Ends(inputEnded: false, output: .shutDown)
  static let shutdownPending = Ends(inputEnded: false, output: .shutdownAfterFlush)
  static let unwritable = Flow(isWritable: false, awaitingWritable: false)
  static let kernelFull = Flow(isWritable: true, awaitingWritable: true)

  @Test func connectingEndsOpenOrClosed() {
    let connecting = Lifecycle.connecting { _ in }
    #expect(Lifecycle.allows(connecting, .open(Flow())))
    #expect(Lifecycle.allows(connecting, .closed))
    #expect(!Lifecycle.allows(connecting, .open(Self.unwritable)))
    #expect(!Lifecycle.allows(connecting, .halfClosed(Self.inputEnded, Flow())))
    #expect(!Lifecycle.allows(connecting, .closing(.none, Flow())))
  }

  @Test func theLifecycleOnlyMovesForward() {
    let open = Lifecycle.open(Flow())
    let half = Lifecycle.halfClosed(Self.inputEnded, Flow())
    let closing = Lifecycle.closing(Self.inputEnded, Flow())
    #expect(Lifecycle.allows(open, half))
    #expect(Lifecycle.allows(open, .closing(.none, Flow())))
    #expect(Lifecycle.allows(half, closing))
    for state in [open, half, closing] {
      #expect(Lifecycle.allows(state, .closed), "\(state) → closed")
      #expect(!Lifecycle.allows(state, .connecting { _ in }), "\(state) → connecting")
      #expect(!Lifecycle.allows(.closed, state), "closed → \(state)")
    }
    #expect(!Lifecycle.allows(half, open))
    #expect(!Lifecycle.allows(closing, open))
    #expect(!Lifecycle.allows(closing, half))
    #expect(!Lifecycle.allows(.closed, .closed))
  }

  @Test func halfClosedEndsNeverReopen() {
    let both = Ends(inputEnded: true, output: .shutDown)
    #expect(Lifecycle.allows(.halfClosed(Self.inputEnded, Flow()), .halfClosed(both, Flow())))
    #expect(Lifecycle.allows(.halfClosed(Self.shutdownPending, Flow()), .halfClosed(Self.outputShutDown, Flow())))
    #expect(!Lifecycle.allows(.halfClosed(both, Flow()), .halfClosed(Self.inputEnded, Flow())))
    #expect(!Lifecycle.allows(.halfClosed(Self.outputShutDown, Flow()), .halfClosed(Self.shutdownPending, Flow())))
    #expect(!Lifecycle.allows(.halfClosed(Self.inputEnded, Flow()), .closing(.none, Flow())))
    #expect(!Lifecycle.allows(.open(Flow()), .halfClosed(.none, Flow())), "half-closed means something is")
  }

  @Test func theFlowChangesInEveryLiveState() {
    for state in [
      Lifecycle.open(Flow()), .halfClosed(Self.inputEnded, Flow()), .closing(.none, Flow()),
    ] {
      #expect(Lifecycle.allows(state, state.with(Self.unwritable)))
      #expect(Lifecycle.allows(state.with(Self.unwritable), state))
      #expect(state.with(Self.kernelFull).flow == Self.kernelFull)
    }
  }

  @Test func withEndsTurnsOpenIntoHalfClosedAndKeepsClosing() {
    if case .halfClosed(let ends, _) = Lifecycle.open(Flow()).with(Self.inputEnded, Flow()) {
      #expect(ends == Self.inputEnded)
    } else {
      Issue.record("open with an ended input is half-closed")
    }
    if case .closing(let ends, _) = Lifecycle.closing(.none, Flow()).with(Self.shutdownPending, Flow()) {
      #expect(ends == Self.shutdownPending)
    } else {
      Issue.record("closing stays closing")
    }
  }

  @Test func readingNeedsOpenInputAndWritability() {
    #expect(Lifecycle.open(Flow()).readsInput)
    #expect(!Lifecycle.open(Self.unwritable).readsInput)
    #expect(Lifecycle.halfClosed(Self.outputShutDown, Flow()).readsInput)
    #expect(!Lifecycle.halfClosed(Self.inputEnded, Flow()).readsInput)
    #expect(!Lifecycle.closing(.none, Flow()).readsInput)
    #expect(!Lifecycle.connecting { _ in }.readsInput)
    #expect(!Lifecycle.closed.readsInput)
  }

  @Test func writesAndFlushesFollowTheState() {
    #expect(Lifecycle.open(Flow()).acceptsWrites)
    #expect(Lifecycle.halfClosed(Self.outputShutDown, Flow()).acceptsWrites)
    #expect(!Lifecycle.closing(.none, Flow()).acceptsWrites)
    #expect(!Lifecycle.closed.acceptsWrites)
    #expect(Lifecycle.closing(.none, Flow()).canFlush)
    #expect(!Lifecycle.open(Self.kernelFull).canFlush)
    #expect(!Lifecycle.connecting { _ in }.canFlush)
    #expect(Lifecycle.closing(.none, Flow()).waitsForDrain)
    #expect(Lifecycle.halfClosed(Self.shutdownPending, Flow()).waitsForDrain)
    #expect(!Lifecycle.halfClosed(Self.outputShutDown, Flow()).waitsForDrain)
  }

  @Test func theInterestFollowsTheState() {
    #expect(Lifecycle.connecting { _ in }.interest == .write)
    #expect(Lifecycle.open(Flow()).interest == .read)
    #expect(Lifecycle.open(Self.kernelFull).interest == [.read, .write])
    #expect(Lifecycle.open(Self.unwritable).interest == [])
    #expect(Lifecycle.halfClosed(Self.inputEnded, Self.kernelFull).interest == .write)
    #expect(Lifecycle.closing(.none, Flow()).interest == [])
    #expect(Lifecycle.closed.interest == nil)
  }

  @Test func statesDescribeThemselvesForTheTransitionCheck() {
    #expect("\(Lifecycle.open(Flow()))" == "open")
    #expect("\(Lifecycle.halfClosed(Self.inputEnded, Self.unwritable))" == "halfClosed(input ended, unwritable)")
    #expect("\(Lifecycle.closing(Self.shutdownPending, Self.kernelFull))"
      == "closing(output shut down after flush, awaiting writability)")
  }
}
