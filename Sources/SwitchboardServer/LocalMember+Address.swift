import SwitchboardChat

// The members' addresses the admin console lists (``LocalMember/remoteAddress``), read from
// what each connection already holds.

extension LineSession {
  var remoteAddress: String? { connection.remoteAddress?.description }
}

extension WebSocketSession {
  var remoteAddress: String? { connection.remoteAddress?.description }
}

extension UDPMember {
  var remoteAddress: String? { address.description }
}
