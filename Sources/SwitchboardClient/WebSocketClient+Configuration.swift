import SwitchboardIO
import SwitchboardLog
import SwitchboardTLS
import SwitchboardWebSocket

extension WebSocketClient {
  /// How a ``WebSocketClient`` connects and the limits it enforces.
  public struct Configuration: Sendable {
    /// Extra request header fields (`Origin`, `Authorization`, …).
    public var extraHeaders: [(String, String)]
    /// Subprotocols to offer, in preference order (`Sec-WebSocket-Protocol`).
    public var subprotocols: [String]
    /// Whether to offer permessage-deflate (RFC 7692). The server decides; see
    /// ``WebSocketClient/isCompressed``.
    public var compression: Bool
    /// The time allowed for the TCP connection, the TLS handshake (`wss://`) and the
    /// opening handshake together (default 10 s). Exceeding it fails with ``WebSocketClientError/timeout``.
    public var connectTimeout: Duration
    /// How long ``WebSocketClient/close(code:reason:)`` waits for the server's close
    /// frame, and then for the server to close TCP, before closing the socket itself
    /// (default 5 s).
    public var closeTimeout: Duration
    /// The largest message accepted from the server, after decompression (default
    /// 16 MiB). A larger message fails the connection with close code 1009
    /// (`.messageTooBig`).
    public var maxMessageSize: Int
    /// The largest frame accepted from the server; `nil` (the default) uses
    /// ``maxMessageSize``.
    public var maxFrameSize: Int?
    /// Supplies the masking key of every outgoing frame; `nil` (the default) uses
    /// `UInt32.random(in:)`. Tests may inject a fixed sequence.
    public var maskKeyProvider: (@Sendable () -> UInt32)?
    /// The event loops to run the socket on; `nil` (the default) uses a shared group of
    /// one loop created on first use and kept for the life of the process.
    public var eventLoopGroup: EventLoopGroup?
    /// How a `wss://` connection verifies the server; ignored for `ws://`.
    ///
    /// `nil` (the default) trusts the system's root store and checks that the certificate
    /// names the URL's host. Set it to trust a private CA (`trustRoots: .caFile(path)`),
    /// pin the server's key (`pinnedSHA256`), or check a different name than the host
    /// (`serverName`, also sent as SNI). When ``TLSConfiguration/serverName`` is `nil` the
    /// URL's host is used. A failure is ``WebSocketClientError/tlsFailed``.
    public var tls: TLSConfiguration?
    /// Where the client logs (at debug: the handshake's outcome). The default writes nothing.
    public var logger = Log.disabled

    /// Creates a configuration; every parameter has the documented default.
    public init(
      extraHeaders: [(String, String)] = [], subprotocols: [String] = [], compression: Bool = false,
      connectTimeout: Duration = .seconds(10), closeTimeout: Duration = .seconds(5),
      maxMessageSize: Int = 16 << 20, maxFrameSize: Int? = nil,
      maskKeyProvider: (@Sendable () -> UInt32)? = nil, eventLoopGroup: EventLoopGroup? = nil,
      tls: TLSConfiguration? = nil
    ) {
      self.extraHeaders = extraHeaders
      self.subprotocols = subprotocols
      self.compression = compression
      self.connectTimeout = connectTimeout
      self.closeTimeout = closeTimeout
      self.maxMessageSize = maxMessageSize
      self.maxFrameSize = maxFrameSize
      self.maskKeyProvider = maskKeyProvider
      self.eventLoopGroup = eventLoopGroup
      self.tls = tls
    }
  }

  /// Something that happened on the connection, in the order it happened.
  public enum Event: Sendable, Hashable {
    /// A complete text message.
    case text(String)
    /// A complete binary message.
    case binary([UInt8])
    /// The server pinged; the pong was already sent.
    case ping([UInt8])
    /// The server answered a ping (or sent an unsolicited pong).
    case pong([UInt8])
    /// The connection ended; the stream finishes after this event. `code` is the close
    /// code the server sent (`nil` when its close frame had none), or the code this side
    /// sent when it failed the connection for a protocol violation (`.protocolError`,
    /// `.invalidFramePayloadData`, `.messageTooBig`, …), or `.abnormalClosure` (1006) when
    /// the connection was lost without a close handshake.
    case closed(code: WebSocketCloseCode?, reason: String)
  }

  /// The group used when ``Configuration/eventLoopGroup`` is `nil`: one loop, created on
  /// first use (Swift initialises a `static let` lazily and once).
  static let sharedGroup: Result<EventLoopGroup, IOError> = Result { () throws(IOError) in
    try EventLoopGroup(count: 1)
  }
}
