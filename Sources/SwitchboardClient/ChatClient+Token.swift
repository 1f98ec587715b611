import SwitchboardLog
import SwitchboardWire

/// Tokens from the configuration's provider (docs/CLIENT.md, "Tokens that expire"): one per
/// connect attempt, and a refresh when the server says the connection's token runs out.
extension ChatClient {
  /// The token to present on this connect attempt: the provider's, else the fixed one.
  /// - Throws: ``ChatClientError/tokenUnavailable`` with the provider's error.
  func currentToken() async throws(ChatClientError) -> String? {
    guard let provider = configuration.tokenProvider else { return configuration.token }
    do {
      return try Self.checkedToken(try await provider())
    } catch let error as ChatClientError {
      throw error
    } catch {
      throw .tokenUnavailable("token provider failed: \(error)")
    }
  }

  /// A provider's answer must be one word: it goes into a URL's query or an `auth:` line.
  private static func checkedToken(_ token: String) throws(ChatClientError) -> String {
    guard !token.isEmpty, !token.contains(where: { $0.isWhitespace || $0.isNewline }) else {
      throw .tokenUnavailable("token provider failed: its answer is not one word (empty, or spaces or lines in it)")
    }
    return token
  }

  /// Whether `text` (a JSON frame or a line) is the server's notice that the connection's
  /// token runs out soon: `{"type":"token_expiring",…}`, `* token expires in N s, …`.
  static func isTokenNotice(_ text: String) -> Bool {
    text.hasPrefix(#"{"type":"token_expiring""#) || text.hasPrefix("* token expires in ")
  }

  /// Asks the provider for a fresh token and has the writer send it as a refresh. Without a
  /// provider there is nothing fresh to send (a fixed token would be refused as the same
  /// expiry): the connection closes at expiry, as before.
  func refreshToken(events: AsyncStream<Event>.Continuation, logger: Log) {
    guard configuration.tokenProvider != nil else { return }
    Task {
      let token: String?
      do throws(ChatClientError) {
        token = try await currentToken()
      } catch {
        logger.warning("token refresh failed", metadata: ["error": "\(error)"])
        events.yield(.error(error))
        return
      }
      guard let token else { return }
      let kick = state.withLock { s -> AsyncStream<Void>.Continuation? in
        // Lost meanwhile: the next connection presents a token of its own.
        guard s.link.isReady else { return nil }
        s.pendingRefresh = s.scheme == .tcp || s.scheme == .tls ? "auth:" + token : JSONDialect.refresh(token: token)
        return s.link.kick
      }
      logger.info("token refreshed")
      kick?.yield()
    }
  }
}

extension ChatClientState {
  /// Whether `refusal` is one a new connection can get past: the connection's token ran out
  /// (no refresh reached the server in time) and a provider can make another.
  func isRenewable(_ refusal: ChatRefusal) -> Bool {
    renewsTokens && refusal.reason == "token expired"
  }

  /// The refresh to write before anything else, once; `nil` when none waits or the
  /// connection is not ready (a refresh belongs to the connection whose token runs out).
  mutating func takeRefresh() -> String? {
    guard link.isReady else { return nil }
    defer { pendingRefresh = nil }
    return pendingRefresh
  }
}
