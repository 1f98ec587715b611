import SwitchboardWire

/// How a `udp://` client proves to the server that it receives at its address
/// (``DatagramProof``), as a pure state machine; ``DatagramConnection`` carries out its actions.
///
/// Connecting: the client sends ``DatagramProof/request`` (`/ok`, padded so that the
/// server may answer it) until the server offers a code, then `/ok CODE` until the server
/// accepts it; then it sends its hello (`iam:NAME`, `/join ROOM`) and is connected. Both
/// are resent on every ``retransmission`` tick, so a lost datagram costs a tick, not the
/// connect. Later, an offer means the server forgot the address (it restarted, or the
/// client was quiet past the server's member TTL): the client proves itself again, holding
/// its messages meanwhile, and sends its hello again so that it is back under its name in
/// its room.
struct DatagramHandshake {
  enum Stage: Equatable {
    /// Asking for a code; `answered` once the server has sent anything at all.
    case asking(answered: Bool)
    /// Proving with the code offered.
    case proving(code: String)
    /// A member: lines go to the client.
    case member
    /// A member the server forgot, proving itself again.
    case reproving(code: String)
  }

  /// What to do with a line from the server.
  enum Action: Equatable {
    /// Nothing (a handshake line, or an echo while connecting).
    case none
    /// Hand the line to the client.
    case deliver
    /// Send these datagrams.
    case send([String])
    /// The server accepted the address for the first time: send these datagrams (the
    /// hello), and the connect has succeeded.
    case connected([String])
    /// The server refused before the address was accepted (an `! …` line, e.g. auth is
    /// on or the member cap is reached): the connect fails with this text.
    case refused(String)
  }

  /// Messages held while proving again, at most this many (the rest go out as they come:
  /// echoed, though perhaps not published).
  static let maxHeld = 1000
  /// What an older server answers `/ok` with: it needs no proof.
  static let olderServerAnswer = "! unknown command /ok (try /help)"

  private(set) var stage = Stage.asking(answered: false)
  private let hello: [String]
  private var held: [String] = []

  init(hello: [String]) {
    self.hello = hello
  }

  /// The datagram to send on each tick before the address is accepted (`nil` once it is).
  var retransmission: String? {
    switch stage {
    case .asking: DatagramProof.request
    case .proving(let code), .reproving(let code): DatagramProof.proof(code: code)
    case .member: nil
    }
  }

  /// The datagram to start with.
  var first: String { DatagramProof.request }

  /// Applies one line (without its newline) from the server.
  mutating func receive(_ line: String) -> Action {
    if let code = DatagramProof.code(inOffer: line) {
      switch stage {
      case .asking, .proving: stage = .proving(code: code)
      case .member, .reproving: stage = .reproving(code: code)
      }
      return .send([DatagramProof.proof(code: code)])
    }
    let accepted = DatagramProof.isAcceptance(line)
    switch stage {
    case .asking, .proving:
      if accepted || line == Self.olderServerAnswer {
        stage = .member
        return .connected(hello)
      }
      if line.hasPrefix("! ") { return .refused(String(line.dropFirst(2))) }
      if case .asking = stage { stage = .asking(answered: true) }
      return .none
    case .member:
      return accepted ? .none : .deliver
    case .reproving:
      guard accepted else { return .deliver }
      stage = .member
      defer { held = [] }
      return .send(hello + held)
    }
  }

  /// A message to send: returned to send now, or `nil` when held until the address is
  /// accepted again.
  mutating func outgoing(_ text: String) -> String? {
    guard case .reproving = stage, held.count < Self.maxHeld else { return text }
    held.append(text)
    return nil
  }

  /// Why connecting to `server` ran out of time, by how far it got.
  func timeoutReason(server: String, after limit: Duration) -> String {
    switch stage {
    case .asking(answered: false): "no answer from udp://\(server) within \(limit)"
    case .asking(answered: true):
      "udp://\(server) answered but offered no code to prove this address with within \(limit)"
    case .proving, .reproving: "udp://\(server) did not accept this address's proof within \(limit)"
    case .member: "connected"
    }
  }
}
