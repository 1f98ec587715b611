import CSwitchboardShims

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What a ``TCPConnection`` tells its owner. Called on the connection's loop.
public protocol TCPConnectionDelegate: AnyObject {
  /// Bytes arrived. The buffer is the loop's shared read buffer: copy what you keep.
  func connection(_ connection: TCPConnection, didRead bytes: UnsafeRawBufferPointer)
  /// The peer closed its sending side (half-close). The connection can still write; the
  /// default closes it once pending output is flushed.
  func connectionDidReadEOF(_ connection: TCPConnection)
  /// Buffered output crossed the high-water mark (`false`) or drained below the low one
  /// (`true`). While unwritable the connection stops reading, so a peer that does not read
  /// cannot keep sending either.
  func connection(_ connection: TCPConnection, writabilityChanged writable: Bool)
  /// The connection is closed; `error` is `nil` for an orderly close.
  func connection(_ connection: TCPConnection, didCloseWith error: IOError?)
  /// The peer is too slow: more than ``WriteLimits/maximumBuffered`` bytes are queued while
  /// the kernel's buffer is full. The unsent backlog is already discarded (all of it but
  /// the rest of a chunk the kernel took part of, so the stream stays well-formed); the
  /// bytes returned — a close frame, a last line — are queued in its place, the connection
  /// closes once they leave, and resets if they have not left after
  /// ``WriteLimits/farewellTime``. `nil` (the default) resets at once. Either way the close
  /// reports an ``IOError`` of kind ``IOError/Kind/slowConsumer``; new writes are dropped
  /// from here on.
  func connectionIsTooSlow(_ connection: TCPConnection) -> SharedBytes?
}

extension TCPConnectionDelegate {
  public func connectionDidReadEOF(_ connection: TCPConnection) { connection.close() }
  public func connection(_ connection: TCPConnection, writabilityChanged writable: Bool) {}
  public func connectionIsTooSlow(_ connection: TCPConnection) -> SharedBytes? { nil }
}

/// Output limits of a connection.
///
/// Every connection carries one, so the marks are stored in 32 bits and the farewell time
/// in nanoseconds (24 bytes, not 40); the properties read and take `Int` and `Duration`.
public struct WriteLimits: Sendable {
  private var high: UInt32 = 256 * 1024
  private var low: UInt32 = 64 * 1024
  /// Above this, while the kernel's buffer is full, the peer is too slow: the backlog is
  /// dropped, the delegate's farewell (``TCPConnectionDelegate/connectionIsTooSlow(_:)``)
  /// goes in its place, and the connection closes with an ``IOError`` of kind
  /// ``IOError/Kind/slowConsumer``, so memory stays bounded whatever the peer does.
  public var maximumBuffered = 4 * 1024 * 1024
  private var farewellNanoseconds: UInt64 = 2_000_000_000

  /// Above this many buffered bytes the connection is unwritable and stops reading (at
  /// most 4 GiB − 1).
  public var highWaterMark: Int {
    get { Int(high) }
    set { high = UInt32(clamping: newValue) }
  }
  /// Below this it is writable again (at most 4 GiB − 1).
  public var lowWaterMark: Int {
    get { Int(low) }
    set { low = UInt32(clamping: newValue) }
  }
  /// How long a slow consumer's farewell may take to leave before the connection is reset
  /// (a peer that never reads again must not hold the descriptor).
  public var farewellTime: Duration {
    get { .nanoseconds(Int64(clamping: farewellNanoseconds)) }
    set { farewellNanoseconds = newValue.nanoseconds }
  }
  public init() {}
}

/// A non-blocking TCP stream bound to one event loop.
///
/// Writes are appended to a queue and flushed once per loop iteration with one
/// `send`/`sendmsg`, so a burst of frames costs one system call — or, on a loop with the
/// ``SelectorBackend/ioUring`` backend, with one entry of the loop's io_uring, so that the
/// output of every connection of the iteration costs one system call together. Every
/// method must be called on ``loop``.
public final class TCPConnection: Selectable, Flushable {
  /// The loop that owns the connection.
  public let loop: EventLoop
  /// The socket.
  public let fd: Int32
  /// The peer's address, when known.
  public let remoteAddress: SocketAddress?
  /// Receives reads and state changes. Held strongly until the connection closes, then
  /// released (so a delegate that holds its connection forms no lasting cycle). Strong
  /// rather than weak because a weakly referenced object gets a side table, and every
  /// retain of it then takes the runtime's slow path: on the server that was every
  /// session on every fan-out delivery.
  ///
  /// Its exclusivity checks are off (see below): it is read on every read event, and the
  /// delegate is only ever set from the loop's thread, outside its own calls.
  @exclusivity(unchecked) public var delegate: TCPConnectionDelegate?
  // The write path touches this state several times per queued frame; as ordinary class
  // properties each touch paid a dynamic exclusivity check (swift_beginAccess), measured
  // with callgrind at ~45 % of the user-space instructions of a fan-out delivery. The
  // connection is confined to its loop's thread and no access here overlaps another, so
  // the checks are switched off for these properties only.

  /// Output limits.
  @exclusivity(unchecked) public var limits = WriteLimits()
  /// Where the bytes read and sent are counted (per system call), when anywhere.
  @exclusivity(unchecked) public var byteCounter: ByteCounter?
  /// Where the connection is in its life, with its flow control; changed only by
  /// ``move(to:)``.
  @exclusivity(unchecked) private var state: Lifecycle = .open(Flow())
  /// The output not yet taken by the kernel.
  @exclusivity(unchecked) private var pending = PendingWrites()
  // Two markers stay apart from `state` because they say where the connection stands with
  // the loop, not with its peer; any lifecycle state can hold either, so folding them in
  // would double every case.
  /// The connection is in the loop's flush list for this iteration (see ``flush()``).
  @exclusivity(unchecked) private var flushScheduled = false
  /// A send of this connection's queue is in the loop's io_uring batch (see ``flush()``);
  /// the queue's head must not be described again until its completion is counted.
  @exclusivity(unchecked) private var sendQueued = false
  /// The bytes that send asked for, and what its completion said (kept from
  /// ``sendCompleted(_:)`` to ``sendSettled()``; a failed send's error in ``Rare``).
  @exclusivity(unchecked) private var sendRequested = 0
  @exclusivity(unchecked) private var sendKernelFull = false
  /// What few connections ever need, made when first needed (see ``Rare``).
  @exclusivity(unchecked) private var rare: Rare?

  /// The state of a connect, a failed batched send and a slow consumer's farewell: beside
  /// the lifecycle rather than in it, so that the lifecycle stays a plain value, and out of
  /// the object, so that an idle connection carries one pointer for it instead of 120
  /// bytes (two optional errors, a closure, a timer).
  private final class Rare {
    /// `connect`'s callback, while the state is `.connecting`.
    var connectCompletion: ((IOError?) -> Void)?
    /// A batched send's error, from ``TCPConnection/sendCompleted(_:)`` to
    /// ``TCPConnection/sendSettled()``.
    var sendError: IOError?
    /// What the close reports once a slow consumer's farewell left (set with the
    /// `closing` state it leads to), and the timer that resets the connection when the
    /// farewell does not leave.
    var closeError: IOError?
    var farewellTimer: Scheduled?
  }

  /// ``rare``, made if need be.
  private var rareState: Rare {
    if let rare { return rare }
    let made = Rare()
    rare = made
    return made
  }

  /// Bytes waiting to be written.
  public var bufferedBytes: Int { pending.bufferedBytes }
  /// `false` while buffered output is above the high-water mark (see ``WriteLimits``). A
  /// closed connection buffers nothing and reports `true`: check ``isClosed`` first.
  public var isWritable: Bool { state.flow?.isWritable ?? true }
  /// `true` once the connection is closed (no more callbacks, writes are dropped).
  public var isClosed: Bool { state.isClosed }

  /// Adopts an accepted, non-blocking socket and starts reading. Must run on `loop`.
  /// - Throws: ``IOError`` when the descriptor cannot be registered (it is then closed).
  public init(fd: Int32, loop: EventLoop, remoteAddress: SocketAddress? = nil) throws(IOError) {
    loop.assertInEventLoop()
    self.fd = fd
    self.loop = loop
    self.remoteAddress = remoteAddress ?? Socket.remoteAddress(fd)
    Socket.setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
    do {
      try loop.register(self, fd: fd, interest: .read)
    } catch {
      _ = Posix.close(fd)
      throw error
    }
  }

  private init(
    connectingFD fd: Int32, loop: EventLoop, remote: SocketAddress,
    completion: @escaping (TCPConnection, IOError?) -> Void
  ) throws(IOError) {
    self.fd = fd
    self.loop = loop
    self.remoteAddress = remote
    state = .connecting
    rareState.connectCompletion = { [unowned self] error in completion(self, error) }
    try loop.register(self, fd: fd, interest: .write)
  }

  /// Opens a connection to `address` on `loop` (which must be the current loop). The
  /// callback gets the connection once established, or the error (`connect` with
  /// `ECONNREFUSED`, …). The delegate should be set inside the callback.
  public static func connect(
    to address: SocketAddress, on loop: EventLoop,
    _ completion: @escaping (Result<TCPConnection, IOError>) -> Void
  ) {
    loop.assertInEventLoop()
    let fd: Int32
    do {
      fd = try Socket.make(family: address.family, type: Socket.streamType)
    } catch {
      completion(.failure(error))
      return
    }
    Socket.setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
    let rc = address.withSockAddr { sa, len in Posix.connect(fd, sa, len) }
    let err = rc == 0 ? 0 : errno
    if rc != 0 && err != EINPROGRESS && err != EINTR {
      _ = Posix.close(fd)
      completion(.failure(IOError(call: "connect", errno: err, detail: address.description)))
      return
    }
    do {
      _ = try TCPConnection(connectingFD: fd, loop: loop, remote: address) { connection, error in
        if let error {
          completion(.failure(IOError(call: "connect", errno: error.errno, detail: address.description)))
        } else {
          completion(.success(connection))
        }
      }
    } catch {
      _ = Posix.close(fd)
      completion(.failure(error))
    }
  }

  // MARK: State

  /// Moves the lifecycle to `next` — the one place it changes. Checks the transition and
  /// tells the loop when what the descriptor is watched for changes with it.
  private func move(to next: Lifecycle) {
    precondition(Lifecycle.allows(state, next), "TCPConnection \(fd): invalid transition \(state) → \(next)")
    let before = state.interest
    state = next
    if let after = next.interest, after != before {
      loop.setInterest(fd: fd, after)
    }
  }

  // MARK: Events

  public func handle(_ events: ReadyEvents) {
    if case .connecting = state {
      let completion = rare?.connectCompletion
      // Nothing else can be in the box yet (no output before the connect): an established
      // client connection carries no box.
      rare = nil
      var soError: Int32 = 0
      var len = socklen_t(MemoryLayout<Int32>.size)
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &len)
      if soError != 0 {
        move(to: .closed)
        loop.deregisterAndClose(fd: fd)
        completion?(IOError(call: "connect", errno: soError))
        return
      }
      move(to: .open(Flow()))
      completion?(nil)
      return
    }
    if events.contains(.writable) && !state.isClosed {
      flushNow()
    }
    if (events.contains(.readable) || events.contains(.hangup)) && state.readsInput {
      readAvailable()
    }
    if events.contains(.hangup), state.ends?.inputEnded == true, state.canFlush {
      // Past EOF nothing reads the error a hang-up carries, and epoll reports hang-ups
      // whatever the interest: left alone it would spin the loop. Neither way is open.
      // (Not while waiting for writability: the flush that follows reports the error.)
      var soError: Int32 = 0
      var len = socklen_t(MemoryLayout<Int32>.size)
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &len)
      finish(soError == 0 ? nil : IOError(call: "read", errno: soError))
    }
  }

  private func readAvailable() {
    let buffer = loop.readBuffer
    // Bounded per event for fairness between connections; level-triggering brings us back.
    for _ in 0..<4 {
      guard state.readsInput, var ends = state.ends, let flow = state.flow else { return }
      let result: IOResult<Int>
      do {
        result = try syscall("read") { Posix.read(fd, buffer.baseAddress!, buffer.count) }
      } catch {
        fail(error)
        return
      }
      switch result {
      case .wouldBlock:
        return
      case .processed(0):
        ends.inputEnded = true
        move(to: state.with(flow, ends))
        if let delegate { delegate.connectionDidReadEOF(self) } else { close() }
        return
      case .processed(let n):
        byteCounter?.received.add(n, ordering: .relaxed)
        loop.bytesSinceTrim &+= n
        delegate?.connection(self, didRead: UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        if n < buffer.count { return }
      }
    }
  }

  // MARK: Writing

  /// Queues `bytes` for writing; they leave with the loop's next flush.
  ///
  /// `bytes` is borrowed: a small frame (up to 512 bytes) is copied into the connection's
  /// queue, a larger one is queued by reference (retained) and shared with the other
  /// connections it goes to. A fan-out hands every member the same frame without a retain
  /// and release per member either way.
  public func write(_ bytes: SharedBytes) {
    // One test of the state for the common case: this runs for every member of every fan-out.
    guard let flow = state.writerFlow, bytes.count > 0 else { return }
    pending.appendWritten(bytes, runs: loop.writeRuns)
    queued(flow)
  }

  /// What follows an append to the queue, `flow` being the flow before it: a flush
  /// scheduled, or — while waiting for writability — the slow-consumer check; the
  /// high-water mark either way.
  @inline(__always)
  private func queued(_ flow: Flow) {
    if flow.awaitingWritable {
      // The kernel's buffer is already full: no flush until it is writable again.
      if pending.bufferedBytes > limits.maximumBuffered {
        // And the queue is past the cap.
        failSlowConsumer()
        return
      }
    } else {
      scheduleFlush()
    }
    if pending.bufferedBytes > limits.highWaterMark { pauseIfAboveHighWater() }
  }

  /// Writes `bytes` at once when nothing is queued before them (`immediately`), queueing
  /// only what the kernel does not take; otherwise the same as ``write(_:)``. For a
  /// producer that knows no more output follows in this iteration: it saves the second
  /// visit of the end-of-iteration flush, while bytes written after other queued bytes
  /// still leave behind them, in order.
  public func write(_ bytes: SharedBytes, immediately: Bool) {
    // With an io_uring the end-of-iteration flush sends every connection's output in one
    // system call, which beats sending this one now.
    guard immediately, loop.sendRing == nil else {
      write(bytes)
      return
    }
    writeThrough(bytes)
  }

  /// Writes `bytes` at once with a system call of its own — also on a loop with an
  /// io_uring — when nothing is queued before them, queueing only what the kernel does not
  /// take; otherwise the same as ``write(_:)``. For a connection's first output, such as a
  /// WebSocket upgrade's answer: sent this way it needs no write queue, whose storage a
  /// connection keeps once it has one (40 bytes a connection, on idle connections that
  /// were never sent anything else).
  public func writeAtOnce(_ bytes: SharedBytes) {
    writeThrough(bytes)
  }

  // Out of line: inlined, its iovec and system call made `write(_:immediately:)` a large
  // function (six saved registers and a stack guard) on the fan-out's common path, which
  // only queues.
  @inline(never)
  private func writeThrough(_ bytes: SharedBytes) {
    guard pending.isEmpty, !flushScheduled, let flow = state.writerFlow, !flow.awaitingWritable,
      bytes.count > 0
    else {
      write(bytes)
      return
    }
    // The regular flush, just now instead of at the end of the iteration, and straight
    // from `bytes`: with nothing queued before them they need no queue entry (no append,
    // retain, compaction or iovec fill) unless the kernel leaves part of them; that part
    // stays queued and waits for writability like any other output.
    var iov = iovec(iov_base: bytes.base, iov_len: bytes.count)
    let result: IOResult<Int>
    do {
      result = try syscall("send") { sb_send_stream(fd, &iov, 1) }
    } catch {
      fail(error)
      return
    }
    if case .processed(let written) = result {
      byteCounter?.sent.add(written, ordering: .relaxed)
      // All of it left and nothing waits for a drain: exactly where `afterSends` would
      // leave the connection.
      if written == bytes.count && state.idlesWhenDrained {
        if written >= PendingWrites.largeChunk { loop.bytesSinceTrim &+= written }
        return
      }
      pending.appendWritten(bytes, runs: loop.writeRuns)
      loop.bytesSinceTrim &+= pending.consume(written)
      flushNow()  // the rest, as the queued flush would: until the kernel refuses
    } else {
      pending.appendWritten(bytes, runs: loop.writeRuns)
      afterSends(kernelFull: true)
    }
    if pending.bufferedBytes > limits.highWaterMark { pauseIfAboveHighWater() }
  }

  /// Past the high-water mark the connection turns unwritable and stops reading. (Callers
  /// check the mark first: this is the rare path, kept out of line so that the write path
  /// stays small.)
  @inline(never)
  private func pauseIfAboveHighWater() {
    guard pending.bufferedBytes > limits.highWaterMark, var flow = state.flow, flow.isWritable else { return }
    flow.isWritable = false
    move(to: state.with(flow))
    delegate?.connection(self, writabilityChanged: false)
  }

  /// Copies and queues `bytes` (a small frame behind queued output straight into the
  /// queue's run, see ``PendingWrites/appendWritten(_:runs:)``).
  public func write(_ bytes: [UInt8]) {
    guard pending.takesRun(bytes.count) else { return write(SharedBytes(bytes)) }
    guard let flow = state.writerFlow, !bytes.isEmpty else { return }
    bytes.withUnsafeBytes { pending.append(copying: $0.baseAddress!, count: $0.count, runs: loop.writeRuns) }
    queued(flow)
  }

  /// Queues the `count` bytes of `bytes` from `offset` (a part of a frame batch, say):
  /// copied into the queue's run when small, else as a `SharedBytes` of their own; the
  /// whole of `bytes` is ``write(_:immediately:)``.
  public func write(_ bytes: SharedBytes, offset: Int, count: Int, immediately: Bool) {
    precondition(offset >= 0 && count >= 0 && offset + count <= bytes.count, "write: range outside the bytes")
    if offset == 0 && count == bytes.count { return write(bytes, immediately: immediately) }
    let part = UnsafeRawBufferPointer(start: bytes.base + offset, count: count)
    guard count <= PendingWrites.Run.copyLimit else {
      return write(SharedBytes(copying: part), immediately: immediately)
    }
    guard let flow = state.writerFlow, count > 0 else { return }
    pending.append(copying: part.baseAddress!, count: count, runs: loop.writeRuns)
    queued(flow)
  }

  /// Queues the UTF-8 of `string`.
  public func write(string: String) {
    write(SharedBytes(string: string))
  }

  private func scheduleFlush() {
    guard !flushScheduled, state.canFlush else { return }
    flushScheduled = true
    loop.needsFlush(self)
  }

  public func flush() {
    flushScheduled = false
    guard !sendQueued else { return }
    if loop.sendRing != nil {
      loop.queueSend(self)  // which checks the state itself
    } else if state.canFlush {
      flushNow()
    }
  }

  /// Sends now with a system call of its own (the ring's fallback).
  func flushSynchronously() {
    if state.canFlush { flushNow() }
  }

  /// What ``queueSend(into:tag:)`` did.
  enum RingQueueing { case queued, nothing, full }

  /// Describes the head of the queue (up to the loop's iovec capacity) to the loop's
  /// io_uring as one send. No callbacks: the bytes stay queued (and alive) until
  /// ``sendCompleted(_:)`` counts what the kernel took.
  func queueSend(into ring: OpaquePointer, tag: UInt64) -> RingQueueing {
    guard !sendQueued, !pending.isEmpty, state.canFlush else { return .nothing }
    let count = pending.iovecCount(capacity: loop.iovecCapacity)
    guard let iov = sb_send_ring_reserve(ring, Int32(count)) else { return .full }
    let requested = pending.fill(iov, count: count)
    sb_send_ring_push(ring, fd, iov, Int32(count), tag)
    sendQueued = true
    sendRequested = requested
    return .queued
  }

  /// The first half of a batched send's completion: counts what the kernel took (`result`
  /// is bytes or -errno). No callbacks, so that every connection of the batch is counted
  /// before any delegate runs. Returns whether ``sendSettled()`` has anything to do: not
  /// for the common case — everything sent, nothing pending — which is finished here, so
  /// that a fan-out visits each connection once less.
  func sendCompleted(_ result: Int32) -> Bool {
    sendQueued = false
    if state.isClosed {
      // Finished while this send was in the ring: what `finish` left for now goes.
      releaseQueueAndDescriptor()
      return false
    }
    if result >= 0 {
      loop.bytesSinceTrim &+= pending.consume(Int(result))
      byteCounter?.sent.add(Int(result), ordering: .relaxed)
      sendKernelFull = Int(result) < sendRequested
      if pending.isEmpty && state.idlesWhenDrained {
        pending.compact(runs: loop.writeRuns)
        return false
      }
    } else if result == -EAGAIN || result == -EWOULDBLOCK {
      sendKernelFull = true
    } else if result == -EINTR {
      sendKernelFull = false
    } else {
      rareState.sendError = IOError(call: "send", errno: -result)
    }
    return true
  }

  /// The second half: what a flush does after its sends — wait for writability if the
  /// kernel's buffer filled, flush again if more than one send's worth is queued, report
  /// writability, finish a pending close or half-close; or fail with the send's error.
  func sendSettled() {
    if let error = rare?.sendError {
      rare?.sendError = nil
      fail(error)
      return
    }
    guard !state.isClosed else { return }
    afterSends(kernelFull: sendKernelFull)
  }

  private func flushNow() {
    // A send of this queue is in the ring; its completion continues from there.
    guard !sendQueued else { return }
    while !pending.isEmpty && !state.isClosed {
      let iov = loop.iovecs
      let count = pending.iovecCount(capacity: loop.iovecCapacity)
      _ = pending.fill(iov, count: count)
      let result: IOResult<Int>
      do {
        result = try syscall("send") { sb_send_stream(fd, iov, Int32(count)) }
      } catch {
        fail(error)
        return
      }
      guard case .processed(let written) = result else { break }
      loop.bytesSinceTrim &+= pending.consume(written)
      byteCounter?.sent.add(written, ordering: .relaxed)
    }
    afterSends(kernelFull: true)
  }

  /// Settles the connection after sends. `kernelFull`: the kernel refused part of the
  /// queue, so the rest waits for writability; otherwise what is left (more than one
  /// send's worth of chunks) goes with the next flush.
  private func afterSends(kernelFull: Bool) {
    guard let before = state.flow else { return }
    var flow = before
    pending.compact(runs: loop.writeRuns)
    // Judged after the kernel took what it could (it refused part of the queue): what is
    // left is what the peer did not read. A batched send that the kernel took whole is no
    // verdict yet — the rest goes out with the next flush first. (Appends within one loop
    // iteration are bounded by the read budgets.)
    if kernelFull && pending.bufferedBytes > limits.maximumBuffered {
      failSlowConsumer()
      return
    }
    let drained = pending.isEmpty
    if !drained && !kernelFull { scheduleFlush() }
    flow.awaitingWritable = !drained && kernelFull
    let regained = !flow.isWritable && pending.bufferedBytes < limits.lowWaterMark
    if regained { flow.isWritable = true }
    if flow != before { move(to: state.with(flow)) }
    if regained { delegate?.connection(self, writabilityChanged: true) }
    // (The delegate may have closed, written or shut down meanwhile: this looks again.)
    guard pending.isEmpty, state.waitsForDrain, var ends = state.ends else { return }
    if ends.output == .shutdownAfterFlush {
      ends.output = .shutDown
      move(to: state.with(state.flow!, ends))
      _ = shutdown(fd, Int32(SHUT_WR))
    }
    if case .closing = state { finish(nil) }
  }

  // MARK: Closing

  /// Closes after flushing what is queued (an orderly close).
  public func close() {
    if state.isClosed { return }
    guard !pending.isEmpty, let ends = state.ends, let flow = state.flow else {
      finish(nil)
      return
    }
    move(to: .closing(flow, ends))
    scheduleFlush()
  }

  /// Closes at once and makes the kernel send a reset (SO_LINGER 0), dropping output.
  public func reset() {
    guard !state.isClosed else { return }
    var linger = Posix.Linger(l_onoff: 1, l_linger: 0)
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Posix.Linger>.size))
    finish(nil)
  }

  /// Shuts down the sending side after queued output (TCP half-close).
  public func shutdownOutput() {
    guard state.flow != nil else { return }
    flushNow()
    // What the kernel did not take yet goes first; the last flush sends the FIN.
    guard var ends = state.ends, let flow = state.flow, ends.output == .open else { return }
    if pending.isEmpty {
      ends.output = .shutDown
      move(to: state.with(flow, ends))
      _ = shutdown(fd, Int32(SHUT_WR))
    } else {
      ends.output = .shutdownAfterFlush
      move(to: state.with(flow, ends))
    }
  }

  /// The slow-consumer verdict (out of line: building the error would bloat the callers,
  /// which are the write path). Called with the kernel's buffer full. The backlog goes; the
  /// delegate's farewell takes its place, ahead of everything the peer was still to get —
  /// a client that resumes from history fetches those messages again — and the connection
  /// closes behind it, or resets after ``WriteLimits/farewellTime``.
  @inline(never)
  private func failSlowConsumer() {
    let error = IOError.slowConsumer(limit: limits.maximumBuffered)
    // A send in the ring still points into the queue: nothing can be dropped now.
    guard !sendQueued, state.acceptsWrites else { return fail(error) }
    pending.dropUnstarted(runs: loop.writeRuns)
    pending.compact(runs: loop.writeRuns)
    // (The delegate may close or reset meanwhile: the state is read again after.)
    guard let farewell = delegate?.connectionIsTooSlow(self), farewell.count > 0,
      state.acceptsWrites, var flow = state.flow, let ends = state.ends
    else { return fail(error) }
    pending.append(farewell, runs: loop.writeRuns)
    rareState.closeError = error
    flow.awaitingWritable = true
    move(to: .closing(flow, ends))
    rareState.farewellTimer = loop.scheduleLocal(after: limits.farewellTime) { [self] in fail(error) }
  }

  private func fail(_ error: IOError) {
    guard !state.isClosed else { return }
    if error.kind == .slowConsumer {
      var linger = Posix.Linger(l_onoff: 1, l_linger: 0)
      setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Posix.Linger>.size))
    }
    finish(error)
  }

  private func finish(_ error: IOError?) {
    guard !state.isClosed else { return }
    move(to: .closed)
    // A send in the ring points into the queue and names the descriptor: both stay until
    // its completion (``sendCompleted(_:)``), which always comes within this loop
    // iteration's flush. Freed now, the kernel would read released runs, and a descriptor
    // closed now could be reused by a new socket before the ring's send names it.
    if !sendQueued { releaseQueueAndDescriptor() }
    if let rare {
      rare.connectCompletion = nil
      rare.farewellTimer?.cancel()
      rare.farewellTimer = nil
    }
    let delegate = self.delegate
    self.delegate = nil
    delegate?.connection(self, didCloseWith: error ?? rare?.closeError)
  }

  /// Drops the output still queued and closes the descriptor: once the connection is
  /// closed and no send of its queue is in the ring.
  private func releaseQueueAndDescriptor() {
    pending.removeAll()
    loop.deregisterAndClose(fd: fd)
  }
}

@available(*, unavailable)
extension TCPConnection: Sendable {}
