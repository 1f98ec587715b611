import SwitchboardIO
import Synchronization

/// The UDP transport of ``POSIXChatTransport``: a ``DatagramConnection`` over a
/// SwitchboardIO `UDPSocket` bound to a kernel-chosen port (``UDPSocketLink``). One datagram
/// per unit; "connecting" proves to the server that this client receives at its address
/// (``DatagramHandshake``), then sends the hello datagrams (`iam:NAME`, …); a server that is
/// not there, or never accepts the proof, is noticed as a connect timeout, and a refusal
/// (`! …`) fails the connect at once.
typealias TransportDatagram = DatagramConnection<UDPSocketLink>

extension DatagramConnection where Link == UDPSocketLink {
  static func connect(_ request: ChatTransportRequest) async throws(ChatClientError) -> TransportDatagram {
    let loop = try POSIXChatTransport.loop(request).loop
    let server = try POSIXChatTransport.resolve(request.endpoint)
    let link = try await UDPSocketLink.open(to: server, on: loop)
    let connection = DatagramConnection(link: link, hello: request.hello)
    link.deliver(to: connection)
    try await connection.connect(timeout: request.connectTimeout, server: "\(server)")
    return connection
  }
}

/// A `UDPSocket` as a ``DatagramLink``: sends hop to the socket's loop (in call order), and
/// datagrams from the server go to the connection (from anyone else they are dropped).
final class UDPSocketLink: DatagramLink {
  /// The loop side: the socket, and where its datagrams go.
  private final class Receiver: UDPSocketDelegate {
    let socket: UDPSocket
    let server: SocketAddress
    weak var connection: DatagramConnection<UDPSocketLink>?

    init(socket: UDPSocket, server: SocketAddress) {
      self.socket = socket
      self.server = server
    }

    func socket(_ socket: UDPSocket, didReceive bytes: UnsafeRawBufferPointer, from sender: SocketAddress, truncated: Bool) {
      guard sender == server else { return }
      connection?.received(bytes)
    }
  }

  private let receiver: LoopBound<Receiver>
  private let closed = Atomic(false)

  private init(receiver: LoopBound<Receiver>) {
    self.receiver = receiver
  }

  /// Binds a socket to the wildcard address of `server`'s family, port 0, on `loop`.
  static func open(to server: SocketAddress, on loop: EventLoop) async throws(ChatClientError) -> UDPSocketLink {
    let result = await withCheckedContinuation {
      (done: CheckedContinuation<Result<UDPSocketLink, ChatClientError>, Never>) in
      loop.execute {
        do {
          let wildcard = try SocketAddress(host: server.ipAddress.contains(":") ? "::" : "0.0.0.0", port: 0)
          let socket = try UDPSocket(bindingTo: wildcard, loop: loop)
          let receiver = Receiver(socket: socket, server: server)
          socket.delegate = receiver
          done.resume(returning: .success(UDPSocketLink(receiver: LoopBound(receiver, on: loop))))
        } catch {
          done.resume(returning: .failure(.connectFailed("\(error)")))
        }
      }
    }
    return try result.get()
  }

  /// Points arriving datagrams at `connection` (before anything is sent: the hop is queued
  /// ahead of the first send).
  func deliver(to connection: DatagramConnection<UDPSocketLink>) {
    let receiver = self.receiver
    receiver.loop.execute { [weak connection] in receiver.value.connection = connection }
  }

  func send(_ datagram: String) -> Bool {
    guard !closed.load(ordering: .relaxed) else { return false }
    let receiver = self.receiver
    receiver.loop.execute { receiver.value.socket.send(SharedBytes(string: datagram), to: receiver.value.server) }
    return true
  }

  func close() {
    guard !closed.exchange(true, ordering: .relaxed) else { return }
    let receiver = self.receiver
    receiver.loop.execute { receiver.value.socket.close() }
  }
}
