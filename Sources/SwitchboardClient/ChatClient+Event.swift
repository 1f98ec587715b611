import Foundation
import SwitchboardDiscovery
import SwitchboardWebSocket

extension ChatClient {
  /// Something that happened, in order. The stream of a ``ChatClient/run(isolation:_:)``
  /// call ends after the client stops (closed, cancelled or gave up).
  public enum Event: Sendable {
    /// A connection is up (after every reconnect too). Messages queued meanwhile are
    /// being sent.
    case connected(Connection)
    /// A chat message, live or replayed after a reconnect (never twice: WebSocket
    /// messages are deduplicated by `id`).
    case message(Message)
    /// Someone joined, left or renamed.
    case presence(Presence)
    /// Messages kept by the server, sent on every WebSocket (re)connect: the last ones
    /// on the first connect, every one after the last id seen on a reconnect (only those
    /// not delivered before). `recovered` is `false` when the server could not prove
    /// nothing was missed (see ``gap(since:epoch:)``).
    case history(messages: [Message], recovered: Bool, epoch: String?)
    /// A resume could not be complete: messages after `since` may be missing (they fell
    /// out of the server's history, or the room's history was reset: a new `epoch`).
    case gap(since: UInt64?, epoch: String?)
    /// A notice from the server (a line starting `* ` that is not presence, a reply to a
    /// command).
    case notice(String)
    /// Who is in `room` (sorted by the server; with `--redis`, on every node): the answer to
    /// ``ChatClient/requestMembers()``.
    case members(room: String, names: [String])
    /// The rooms that have members (with tokens, those the token allows), sorted by name:
    /// the answer to ``ChatClient/requestRooms()``.
    case rooms([RoomSummary])
    /// The last kept messages of the room, oldest first, with their ids: the answer to
    /// ``ChatClient/requestHistory(limit:)``. A view, not a replay: the resume point
    /// (``ChatClient/resumePoint``) does not move and the messages may include ones already
    /// delivered as ``message(_:)`` or ``history(messages:recovered:epoch:)``; show them
    /// apart (or not again). Empty when the room keeps none. An action's author cannot be
    /// told from its text on the line dialect: there it has an empty `author` and the
    /// whole `NAME ACTION` as its text.
    case recent([Message])
    /// `author` started (`active`) or stopped typing in `room` (only with
    /// ``Feature/typing`` in ``Configuration/features`` and a server that speaks it). The
    /// server stops a typing state on its own after 5 s without news, and sends `false` then
    /// (WebSocket); a line server sends only starts (`* NAME is typing`): expire them
    /// yourself (``ChatViewModel/typingMembers`` does, after 6 s).
    case typing(room: String, author: String, active: Bool)
    /// What the server speaks and what this connection gets: its answer to the features
    /// asked for (``Configuration/features``), after every connect that asked.
    /// ``ServerFeatures/none`` from a server older than negotiation.
    case features(ServerFeatures)
    /// The peer stopped answering probes (`false`) or answered again (`true`).
    case viabilityChanged(Bool)
    /// The server announced it is going away; the client reconnects by itself.
    case reconnectSuggested(reason: String)
    /// The next connect attempt starts after `delay`; `attempt` counts from 1. Not sent
    /// when the client reconnects at once (``ChatClient/resume()``, ``ChatClient/reconnectNow()``,
    /// a network path change) or waits for an unsatisfied network path to come back.
    case reconnecting(attempt: Int, delay: Duration)
    /// The connection ended. `code` is the WebSocket close code when there was one
    /// (`.goingAway` from a server shutting down, `.abnormalClosure` when the connection
    /// was lost without a close frame); always `nil` on the line and UDP transports. After
    /// ``ChatClient/suspend()`` the reason is `suspended` and the stream goes on.
    case disconnected(reason: String, code: WebSocketCloseCode?)
    /// A connect attempt failed, the server reported an error, or the client stopped: it
    /// gave up (``ChatClientError/gaveUp``) or the server refused it for good
    /// (``ChatClientError/refused``, with ``ChatClientError/refusal``): the last event.
    case error(ChatClientError)
    /// The server pinged (WebSocket; already answered).
    case ping
    /// A pong arrived (WebSocket; the answer to the heartbeat).
    case pong
  }

  /// What a connection is.
  public struct Connection: Sendable, Hashable {
    /// The transport in use.
    public var transport: ChatEndpoint.Scheme
    /// The URL actually connected to (for WebSocket with the resume query).
    public var url: String
    /// The server's `101` response headers (WebSocket only; empty otherwise).
    public var headers: [Header]
    /// How many connections came before this one (0 on the first).
    public var reconnects: Int
    /// The DNS-SD instance this connection was resolved from (host, port, addresses, TXT),
    /// for a service endpoint; `nil` for an address.
    public var service: MDNSResolvedService? = nil
  }

  /// One HTTP header field.
  public struct Header: Sendable, Hashable {
    /// The field name as the server sent it.
    public var name: String
    /// The value.
    public var value: String

    /// A header field (a ``ChatTransportConnection`` reports its response's).
    public init(name: String, value: String) {
      self.name = name
      self.value = value
    }
  }

  /// A chat message.
  public struct Message: Sendable, Hashable, Identifiable {
    /// The per-room sequence number (WebSocket only; `nil` on the line and UDP dialects,
    /// which carry none).
    public var id: UInt64?
    /// The room.
    public var room: String
    /// When the server stored it (WebSocket only).
    public var time: Date?
    /// Who sent it (empty when a line server sent a line not in `NAME: TEXT` form).
    public var author: String
    /// The text.
    public var text: String
    /// Whether this client sent it (its name matches, or the server acknowledged it to
    /// this client). On the line and UDP dialects the server never echoes a member's own
    /// messages, so the client reports each sent message itself, with `id` `nil`.
    public var isMine: Bool
    /// A `/me` action.
    public var isAction: Bool
    /// The author's colour (WebSocket only).
    public var color: String?

    /// Creates a message.
    public init(
      id: UInt64? = nil, room: String, time: Date? = nil, author: String, text: String, isMine: Bool = false,
      isAction: Bool = false, color: String? = nil
    ) {
      self.id = id
      self.room = room
      self.time = time
      self.author = author
      self.text = text
      self.isMine = isMine
      self.isAction = isAction
      self.color = color
    }
  }

  /// A member arriving, leaving or renaming.
  public struct Presence: Sendable, Hashable {
    /// What happened.
    public enum Kind: Sendable, Hashable {
      /// Joined the room.
      case join
      /// Left the room.
      case leave
      /// Renamed from `previous`.
      case rename(previous: String)
    }
    /// What happened.
    public var kind: Kind
    /// The member's (new) name.
    public var author: String
    /// The room, when the server said.
    public var room: String?
    /// How many members the room has now (WebSocket only).
    public var members: Int?
  }
}
