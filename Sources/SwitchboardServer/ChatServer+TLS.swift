import SwitchboardIO
import SwitchboardTLS

extension ChatServer {
  /// The bound HTTPS + WSS address, when TLS is configured and the listener is on.
  public var httpsAddress: SocketAddress? { tls?.httpsAddress }
  /// The bound `tls://` line address, when TLS is configured and the listener is on.
  public var tlsAddress: SocketAddress? { tls?.tlsAddress }

  /// Reads the TLS certificates and keys again (`SIGHUP` in `switchboard serve`). New
  /// handshakes use the new ones; established connections go on with the certificate
  /// they began with.
  /// - Returns: the default certificate now in use (subject, serial, expiry), or `nil`
  ///   when the server has no TLS.
  /// - Throws: ``ServerError`` saying which file failed; the old certificates stay.
  @discardableResult
  public func reloadTLS() throws -> String? {
    guard let tls else { return nil }
    let summary = try tls.reload()
    core.logger.notice("tls certificates reloaded", metadata: ["certificate": summary])
    return summary
  }

  /// Binds the HTTPS and `tls://` listeners that are on (only with certificates).
  func bindTLSListeners() throws {
    guard let tls else { return }
    let c = configuration
    if c.httpsEnabled {
      let bound = try bindTLS(port: c.httpsPort, what: "HTTPS", context: { $0.https }) { conn, ctx in
        ctx.core.httpHandoff(conn, [], ctx)
      }
      tls.recordHTTPS(bound)
    }
    if c.tlsEnabled {
      let bound = try bindTLS(port: c.tlsPort, what: "TLS", context: { $0.line }) { conn, ctx in
        _ = LineSession(connection: conn, context: ctx)
      }
      tls.recordTLS(bound)
    }
    core.logger.info("tls certificate", metadata: ["certificate": tls.contexts.https.certificateSummary ?? ""])
  }

  private func bindTLS(
    port: Int, what: String, context pick: @escaping @Sendable (ServerTLS.Contexts) -> TLSContext,
    session: @escaping @Sendable (ByteStream, LoopContext) -> Void
  ) throws -> SocketAddress {
    guard let tls else { preconditionFailure("bindTLS without TLS") }
    let address: SocketAddress
    do {
      address = try SocketAddress(host: configuration.host, port: port)
    } catch {
      throw ServerError("\(what) listener: \(error)")
    }
    let group = self.group
    let contexts = self.contexts
    let listenerName = what.lowercased()
    let bound = contexts[0].run { context throws(IOError) -> SocketAddress in
      let listener = try TCPListener(address: address, loop: context.loop) { fd, peer in
        // The context is taken at accept time: a reload affects the handshakes after it.
        let tlsContext = pick(tls.contexts)
        Self.adopt(fd: fd, peer: peer, group: group, contexts: contexts, listener: .tls) { conn, ctx in
          do {
            _ = try TLSHandshake(
              accepting: conn, tlsContext: tlsContext, context: ctx, listener: listenerName, startSession: session)
          } catch {
            ctx.logger.warning("cannot start TLS", metadata: .connection(peer: conn.remoteAddress, error: "\(error)"))
            ctx.core.connectionClosed(conn)
            conn.close()
          }
        }
      }
      context.listeners.append(listener)
      return listener.localAddress
    }
    switch bound {
    case .success(let local):
      core.logger.info("listening", metadata: ["listener": listenerName, "address": "\(local)"])
      return local
    case .failure(let error):
      let hint = error.kind == .addressInUse ? " (port in use; pick another with --\(listenerName)-port)" : ""
      throw ServerError("cannot listen for \(what) on \(address): \(error)\(hint)")
    }
  }
}
