import SwitchboardChat
import SwitchboardIO
import SwitchboardLog

extension Log.Metadata {
  /// The metadata of a line about one connection, under the keys docs/OPERATIONS.md lists:
  /// `peer` (the remote address), `conn` (its number among accepted TCP connections),
  /// `member` (the `N` of `Client N`), `dialect` (`line`, `websocket`, `udp`) and `error`.
  static func connection(
    peer: SocketAddress?, conn: Int? = nil, member: MemberID? = nil, dialect: String? = nil,
    error: String? = nil
  ) -> Log.Metadata {
    var metadata = ["peer": peer?.description ?? "unknown"]
    if let conn { metadata["conn"] = "\(conn)" }
    if let member { metadata["member"] = "\(member.raw)" }
    if let dialect { metadata["dialect"] = dialect }
    if let error { metadata["error"] = error }
    return metadata
  }
}
