import SwitchboardHTTP
import SwitchboardIO
import SwitchboardTLS
import SwitchboardWebSocket

/// One benchmark connection: connects, upgrades (WebSocket) or names itself (line chat),
/// then scans what arrives for benchmark messages without copying them, and — when it is
/// a sender — writes batches of messages.
///
/// Bound to its ``BenchLoop``'s event loop; every method runs on that thread. Its stream is
/// TCP, or TLS for `wss://`.
final class BenchClient: ByteStreamDelegate {
  enum State {
    case idle, connecting, handshaking, open, closed
  }

  /// The connection's index over the whole run; senders are `0..<senders`.
  let id: Int
  unowned let owner: BenchLoop
  @exclusivity(unchecked) var state = State.idle
  @exclusivity(unchecked) var connection: ByteStream?
  @exclusivity(unchecked) var connectStart: UInt64 = 0

  // Sender state.
  /// Whose receipt of this sender's messages frees window slots (itself when the server
  /// echoes, otherwise another connection on the same loop); `-1` for none.
  @exclusivity(unchecked) var observerID = -1
  @exclusivity(unchecked) var isSender = false
  @exclusivity(unchecked) var seq: UInt64 = 0
  @exclusivity(unchecked) var inflight = 0
  /// Messages the rate schedule wanted sent so far.
  @exclusivity(unchecked) var scheduleStart: UInt64 = 0
  @exclusivity(unchecked) var queuedForRefill = false

  // Receiving state.
  @exclusivity(unchecked) private var handshake: WebSocketHandshake.ClientRequest?
  @exclusivity(unchecked) private var responseParser = HTTPResponseParser()
  @exclusivity(unchecked) private var carry: [UInt8] = []
  @exclusivity(unchecked) private var fragment: [UInt8] = []
  @exclusivity(unchecked) private var fragmenting = false
  @exclusivity(unchecked) private var maskState: UInt32

  init(id: Int, owner: BenchLoop) {
    self.id = id
    self.owner = owner
    maskState = UInt32(truncatingIfNeeded: id &* 2_654_435_761) | 1
  }

  // MARK: Connecting

  func connect(to address: SocketAddress) {
    state = .connecting
    connectStart = monotonicNanos()
    if owner.config.target.scheme == "wss" {
      let context: TLSContext
      do {
        context = try owner.tlsContext()
      } catch {
        state = .closed
        owner.connectFailed(self, error)
        return
      }
      let host = owner.config.targets[owner.config.targetIndex(ofConnection: id)].host
      TLSConnection.connect(to: address, serverName: host, context: context, on: owner.loop) { [self] result in
        switch result {
        case .failure(let error):
          state = .closed
          owner.connectFailed(self, error)
        case .success(let connection): connected(.tls(connection))
        }
      }
    } else {
      TCPConnection.connect(to: address, on: owner.loop) { [self] result in
        switch result {
        case .failure(let error):
          state = .closed
          owner.connectFailed(self, error)
        case .success(let connection): connected(.tcp(connection))
        }
      }
    }
  }

  private func connected(_ connection: ByteStream) {
    self.connection = connection
    // A TLS connection holds its delegate weakly; the loop's `clients` keep this one.
    connection.attach(self)
    connection.tcp.limits.maximumBuffered = 64 * 1024 * 1024
    if owner.config.wireProtocol == .line {
      connection.write(string: "iam:n\(id)\n")
      opened()
    } else {
      state = .handshaking
      let config = owner.config
      let target = config.targets[config.targetIndex(ofConnection: id)]
      let request = WebSocketHandshake.clientRequest(
        host: "\(target.host):\(target.port)", path: config.requestPath(for: target))
      handshake = request
      connection.write(request.requestBytes)
    }
  }

  private func opened() {
    state = .open
    owner.connectSucceeded(self, nanos: monotonicNanos() &- connectStart)
  }

  // MARK: ByteStreamDelegate

  func stream(_ stream: ByteStream, didRead bytes: UnsafeRawBufferPointer) {
    switch state {
    case .handshaking:
      readHandshake(bytes)
    case .open:
      ingest(bytes)
    default:
      break
    }
    owner.refillQueuedSenders()
  }

  func stream(_ stream: ByteStream, writabilityChanged writable: Bool) {
    if writable && isSender { owner.queueRefill(self) }
  }

  func stream(_ stream: ByteStream, didCloseWith error: ByteStreamError?) {
    let was = state
    state = .closed
    self.connection = nil
    switch was {
    case .connecting, .handshaking:
      if let error {
        owner.connectFailed(self, error)
      } else {
        owner.connectFailed(self, IOError(call: "handshake", errno: 0, detail: "closed by the server"))
      }
    case .open:
      owner.closedUnexpectedly(self, error)
    default:
      break
    }
  }

  private func readHandshake(_ bytes: UnsafeRawBufferPointer) {
    responseParser.append(bytes)
    let head: HTTPResponseHead?
    do {
      head = try responseParser.next()
    } catch {
      fail("handshake: \(error)")
      return
    }
    guard let head, let handshake else { return }
    do {
      _ = try handshake.validate(head)
    } catch {
      fail("handshake: \(error)")
      return
    }
    let rest = responseParser.takeRemainingBytes()
    self.handshake = nil
    responseParser = HTTPResponseParser()
    opened()
    if !rest.isEmpty { rest.withUnsafeBytes { ingest($0) } }
  }

  private func fail(_ reason: String) {
    guard let connection else { return }
    owner.note(reason)
    connection.reset()
  }

  /// Closes the connection at the end of the run (not counted as a failure).
  func finish() {
    let c = connection
    state = .closed
    connection = nil
    c?.close()
  }

  // MARK: Receiving

  private func ingest(_ bytes: UnsafeRawBufferPointer) {
    owner.now = monotonicNanos()
    if carry.isEmpty {
      let used = scan(bytes)
      if used < bytes.count && state == .open {
        carry.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[used...]))
      }
    } else {
      carry.append(contentsOf: bytes)
      let used = carry.withUnsafeBytes { scan($0) }
      if state != .open {
        carry = []
      } else if used == carry.count {
        carry.removeAll(keepingCapacity: carry.capacity <= 4096)
      } else if used > 0 {
        carry.removeSubrange(0..<used)
      }
    }
  }

  /// Handles every complete frame or line in `buffer`; returns the bytes consumed.
  private func scan(_ buffer: UnsafeRawBufferPointer) -> Int {
    guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
    return owner.config.wireProtocol == .line ? scanLines(base, buffer.count) : scanFrames(base, buffer.count)
  }

  private func scanLines(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int {
    var start = 0
    var i = 0
    while i < n {
      if p[i] == UInt8(ascii: "\n") {
        owner.frames &+= 1
        // `NAME: TEXT`: the text starts after the first ": ".
        var j = start
        while j + 3 < i {
          if p[j] == UInt8(ascii: ":") && p[j + 1] == UInt8(ascii: " ") {
            owner.deliver(p + j + 2, count: i - j - 2, to: self)
            break
          }
          j += 1
        }
        start = i + 1
      }
      i += 1
    }
    return start
  }

  private func scanFrames(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int {
    var i = 0
    while n - i >= 2 {
      let b0 = p[i]
      let b1 = p[i + 1]
      if b1 & 0x80 != 0 {
        fail("masked frame from the server")
        return n
      }
      var length = Int(b1 & 0x7F)
      var header = 2
      if length == 126 {
        guard n - i >= 4 else { break }
        length = Int(p[i + 2]) << 8 | Int(p[i + 3])
        header = 4
      } else if length == 127 {
        guard n - i >= 10 else { break }
        var l: UInt64 = 0
        for k in 0..<8 { l = l << 8 | UInt64(p[i + 2 + k]) }
        guard l <= 64 << 20 else {
          fail("frame of \(l) bytes")
          return n
        }
        length = Int(l)
        header = 10
      }
      guard n - i - header >= length else { break }
      frame(opcode: b0 & 0x0F, fin: b0 & 0x80 != 0, p + i + header, length)
      i += header + length
      if state != .open { return n }
    }
    return i
  }

  private func frame(opcode: UInt8, fin: Bool, _ p: UnsafePointer<UInt8>, _ n: Int) {
    owner.frames &+= 1
    switch opcode {
    case 0x1, 0x2:
      if fin {
        message(p, n)
      } else {
        fragmenting = true
        fragment = Array(UnsafeBufferPointer(start: p, count: n))
      }
    case 0x0:
      guard fragmenting else { return }
      fragment.append(contentsOf: UnsafeBufferPointer(start: p, count: n))
      if fin {
        fragmenting = false
        let whole = fragment
        fragment = []
        whole.withUnsafeBufferPointer { message($0.baseAddress!, $0.count) }
      }
    case 0x9:
      // Ping: answer with a pong (python `websockets` closes silent clients).
      let payload = UnsafeRawBufferPointer(start: p, count: n)
      connection?.write(WebSocketFrameEncoder.encode(opcode: .pong, payload: payload, maskKey: nextMask()))
    case 0x8:
      // Close: answer with our own close frame (normal closure), then drop the connection.
      let payload = WebSocketConnection.closePayload(code: .normalClosure, reason: "")
      connection?.write(WebSocketFrameEncoder.encode(opcode: .close, payload: payload, maskKey: nextMask()))
      let c = connection
      if !owner.stopping { owner.closedUnexpectedly(self, nil) }
      state = .closed
      connection = nil
      c?.close()
    default:
      break
    }
  }

  /// One complete text message: JSON or raw text; raw text may hold several messages,
  /// one per line (gorilla's chat example coalesces queued messages that way).
  private func message(_ p: UnsafePointer<UInt8>, _ n: Int) {
    if owner.config.wireProtocol == .json {
      // {"type":"message","data":{"id":…,"room":…,"time":…,"text":"b:…",…}}
      let prefix: StaticString = #"{"type":"message""#
      let plen = prefix.utf8CodeUnitCount
      guard n > plen, memcmp(p, prefix.utf8Start, plen) == 0 else { return }
      // The text's key found by skipping (``TextKeySearch``), and the text not scanned to
      // its end: only its `b:sender:seq:nanos:` head is read, which stops at its own
      // colons. (The generator's cost per message must not grow with the frame's other
      // fields: where the generator is the bottleneck, its rate sets the server's batches.)
      guard let start = TextKeySearch.textStart(p, n, from: plen) else { return }
      owner.deliver(p + start, count: n - start, to: self)
      return
    }
    // memchr, not a loop over the bytes: in the generator-bound scenarios the generator's
    // cost per byte sets the rate, and it must not grow with the text's size faster than
    // the JSON rows' (whose scan stops at the text's end).
    var start = 0
    while start < n {
      let rest = n - start
      let newline = memchr(p + start, Int32(UInt8(ascii: "\n")), rest)
      let end = newline.map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - p } ?? n
      if end > start { owner.deliver(p + start, count: end - start, to: self) }
      start = end + 1
    }
  }

  // MARK: Sending

  @inline(__always)
  func nextMask() -> UInt32 {
    // xorshift32: client frames must be masked; the key's quality does not matter here.
    maskState ^= maskState << 13
    maskState ^= maskState >> 17
    maskState ^= maskState << 5
    return maskState
  }

  /// Writes `count` messages stamped `nanos` in one buffer.
  func send(count: Int, nanos: UInt64, batch: inout [UInt8], text: inout [UInt8]) {
    guard let connection, count > 0 else { return }
    batch.removeAll(keepingCapacity: true)
    let size = owner.config.size
    for _ in 0..<count {
      text.removeAll(keepingCapacity: true)
      switch owner.config.wireProtocol {
      case .line:
        batch.append(contentsOf: "msg:".utf8)
        BenchMessage.append(into: &batch, sender: id, seq: seq, nanos: nanos, size: size)
        batch.append(UInt8(ascii: "\n"))
      case .text:
        BenchMessage.append(into: &text, sender: id, seq: seq, nanos: nanos, size: size)
        text.withUnsafeBytes {
          WebSocketFrameEncoder.append(into: &batch, opcode: .text, payload: $0, maskKey: nextMask())
        }
      case .json:
        text.append(contentsOf: #"{"type":"message","data":{"text":""#.utf8)
        BenchMessage.append(into: &text, sender: id, seq: seq, nanos: nanos, size: size)
        text.append(contentsOf: #""}}"#.utf8)
        text.withUnsafeBytes {
          WebSocketFrameEncoder.append(into: &batch, opcode: .text, payload: $0, maskKey: nextMask())
        }
      }
      seq &+= 1
    }
    inflight += count
    batch.withUnsafeBytes { connection.write($0) }
  }

  /// Whether the connection takes more output now.
  var canSend: Bool { state == .open && (connection?.isWritable ?? false) }
}

/// Finds `"text":"` in a JSON `message` frame: memchr for its `x`, a letter that no other key
/// of the frame's head (`type`, `data`, `id`, `room`, `time`) holds, then a compare around
/// it; a frame whose values hold an `x` before the key costs one more round each.
enum TextKeySearch {
  static var key: StaticString { #""text":""# }

  /// The index just past the first `"text":"` at or after `from` in the `n` bytes at `p`,
  /// or `nil`.
  static func textStart(_ p: UnsafePointer<UInt8>, _ n: Int, from: Int) -> Int? {
    let m = key.utf8CodeUnitCount
    let xAt = 3  // where the key's `x` is
    var j = from + xAt
    while j < n, let found = memchr(p + j, Int32(UInt8(ascii: "x")), n - j) {
      let x = UnsafePointer(found.assumingMemoryBound(to: UInt8.self)) - p
      let start = x - xAt
      if start >= from, start + m <= n, memcmp(p + start, key.utf8Start, m) == 0 { return start + m }
      j = x + 1
    }
    return nil
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
