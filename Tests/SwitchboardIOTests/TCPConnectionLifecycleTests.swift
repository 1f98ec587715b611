import Testing

@testable import SwitchboardIO
import SwitchboardTestSupport

/// `TCPConnection.Lifecycle` without a socket: which transitions are allowed, and what each
/// state reads, writes and watches for.
@Suite(.onTestThreads) struct TCPConnectionLifecycleTests {
  typealias Lifecycle = TCPConnection.Lifecycle
  typealias Flow = TCPConnection.Flow
  typealias Ends = TCPConnection.Ends

  static let inputEnded = Ends(inputEnded: true, output: .open)
  static let outputShutDown = Ends(inputEnded: false, output: .shutDown)
  static let shutdownPending = Ends(inputEnded: false, output: .shutdownAfterFlush)
  static let unwritable = Flow(isWritable: false, awaitingWritable: false)
  static let kernelFull = Flow(isWritable: true, awaitingWritable: true)

  @Test func connectingEndsOpenOrClosed() {
    let connecting = Lifecycle.connecting
    #expect(Lifecycle.allows(connecting, .open(Flow())))
    #expect(Lifecycle.allows(connecting, .closed))
    #expect(!Lifecycle.allows(connecting, .open(Self.unwritable)))
    #expect(!Lifecycle.allows(connecting, .halfClosed(Flow(), Self.inputEnded)))
    #expect(!Lifecycle.allows(connecting, .closing(Flow(), .none)))
  }

  @Test func theLifecycleOnlyMovesForward() {
    let open = Lifecycle.open(Flow())
    let half = Lifecycle.halfClosed(Flow(), Self.inputEnded)
    let closing = Lifecycle.closing(Flow(), Self.inputEnded)
    #expect(Lifecycle.allows(open, half))
    #expect(Lifecycle.allows(open, .closing(Flow(), .none)))
    #expect(Lifecycle.allows(half, closing))
    for state in [open, half, closing] {
      #expect(Lifecycle.allows(state, .closed), "\(state) → closed")
      #expect(!Lifecycle.allows(state, .connecting), "\(state) → connecting")
      #expect(!Lifecycle.allows(.closed, state), "closed → \(state)")
    }
    #expect(!Lifecycle.allows(half, open))
    #expect(!Lifecycle.allows(closing, open))
    #expect(!Lifecycle.allows(closing, half))
    #expect(!Lifecycle.allows(.closed, .closed))
  }

  @Test func halfClosedEndsNeverReopen() {
    let both = Ends(inputEnded: true, output: .shutDown)
    #expect(Lifecycle.allows(.halfClosed(Flow(), Self.inputEnded), .halfClosed(Flow(), both)))
    #expect(Lifecycle.allows(.halfClosed(Flow(), Self.shutdownPending), .halfClosed(Flow(), Self.outputShutDown)))
    #expect(!Lifecycle.allows(.halfClosed(Flow(), both), .halfClosed(Flow(), Self.inputEnded)))
    #expect(!Lifecycle.allows(.halfClosed(Flow(), Self.outputShutDown), .halfClosed(Flow(), Self.shutdownPending)))
    #expect(!Lifecycle.allows(.halfClosed(Flow(), Self.inputEnded), .closing(Flow(), .none)))
    #expect(!Lifecycle.allows(.open(Flow()), .halfClosed(Flow(), .none)), "half-closed means something is")
  }

  @Test func theFlowChangesInEveryLiveState() {
    for state in [
      Lifecycle.open(Flow()), .halfClosed(Flow(), Self.inputEnded), .closing(Flow(), .none),
    ] {
      #expect(Lifecycle.allows(state, state.with(Self.unwritable)))
      #expect(Lifecycle.allows(state.with(Self.unwritable), state))
      #expect(state.with(Self.kernelFull).flow == Self.kernelFull)
    }
  }

  @Test func withEndsTurnsOpenIntoHalfClosedAndKeepsClosing() {
    if case .halfClosed(_, let ends) = Lifecycle.open(Flow()).with(Flow(), Self.inputEnded) {
      #expect(ends == Self.inputEnded)
    } else {
      Issue.record("open with an ended input is half-closed")
    }
    if case .closing(_, let ends) = Lifecycle.closing(Flow(), .none).with(Flow(), Self.shutdownPending) {
      #expect(ends == Self.shutdownPending)
    } else {
      Issue.record("closing stays closing")
    }
  }

  @Test func readingNeedsOpenInputAndWritability() {
    #expect(Lifecycle.open(Flow()).readsInput)
    #expect(!Lifecycle.open(Self.unwritable).readsInput)
    #expect(Lifecycle.halfClosed(Flow(), Self.outputShutDown).readsInput)
    #expect(!Lifecycle.halfClosed(Flow(), Self.inputEnded).readsInput)
    #expect(!Lifecycle.closing(Flow(), .none).readsInput)
    #expect(!Lifecycle.connecting.readsInput)
    #expect(!Lifecycle.closed.readsInput)
  }

  @Test func writesAndFlushesFollowTheState() {
    #expect(Lifecycle.open(Flow()).acceptsWrites)
    #expect(Lifecycle.halfClosed(Flow(), Self.outputShutDown).acceptsWrites)
    #expect(!Lifecycle.closing(Flow(), .none).acceptsWrites)
    #expect(!Lifecycle.closed.acceptsWrites)
    #expect(Lifecycle.closing(Flow(), .none).canFlush)
    #expect(!Lifecycle.open(Self.kernelFull).canFlush)
    #expect(!Lifecycle.connecting.canFlush)
    #expect(Lifecycle.closing(Flow(), .none).waitsForDrain)
    #expect(Lifecycle.halfClosed(Flow(), Self.shutdownPending).waitsForDrain)
    #expect(!Lifecycle.halfClosed(Flow(), Self.outputShutDown).waitsForDrain)
  }

  @Test func theInterestFollowsTheState() {
    #expect(Lifecycle.connecting.interest == .write)
    #expect(Lifecycle.open(Flow()).interest == .read)
    #expect(Lifecycle.open(Self.kernelFull).interest == [.read, .write])
    #expect(Lifecycle.open(Self.unwritable).interest == [])
    #expect(Lifecycle.halfClosed(Self.kernelFull, Self.inputEnded).interest == .write)
    #expect(Lifecycle.closing(Flow(), .none).interest == [])
    #expect(Lifecycle.closed.interest == nil)
  }

  @Test func statesDescribeThemselvesForTheTransitionCheck() {
    #expect("\(Lifecycle.open(Flow()))" == "open")
    #expect("\(Lifecycle.halfClosed(Self.unwritable, Self.inputEnded))" == "halfClosed(input ended, unwritable)")
    #expect("\(Lifecycle.closing(Self.kernelFull, Self.shutdownPending))"
      == "closing(output shut down after flush, awaiting writability)")
  }
}
