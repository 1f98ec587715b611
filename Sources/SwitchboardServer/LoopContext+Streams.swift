import SwitchboardIO
import SwitchboardTLS

extension LoopContext {
  /// Counts a closed connection out: of the connection caps (``ServerCore/admit(_:on:loop:)``
  /// admitted its TCP connection) and, under TLS, of the open TLS connections. Every owner
  /// of an admitted connection calls it once, from its `didCloseWith`.
  func connectionClosed(_ connection: ByteStream) {
    core.connectionClosed(connection.tcp)
    if case .tls = connection { metrics.tls.open.subtract(1, ordering: .relaxed) }
  }
}

extension ByteStreamError {
  /// `true` when the connection was dropped as a slow consumer (its TCP connection's
  /// verdict, also under TLS).
  var isSlowConsumer: Bool {
    switch self {
    case .io(let error): error.kind == .slowConsumer
    case .tls(let error): error.ioError?.kind == .slowConsumer
    }
  }
}
