import SwitchboardChat
import SwitchboardIO

/// A UDP sender, a member of its room until it has been quiet for the TTL.
final class UDPMember: LineParticipant {
  let memberID: MemberID
  let address: SocketAddress
  /// Strong on purpose: room events for this member may still be queued on the loop
  /// after the service closed (its `send` then drops them).
  let service: UDPService
  var lastSeen = Deadline.now()

  init(address: SocketAddress, service: UDPService) {
    self.address = address
    self.service = service
    self.memberID = service.context.hub.nextMemberID(transport: "udp")
  }

  var context: LoopContext { service.context }

  func receive(_ event: ChatEvent, cache: inout EncodingCache) {
    guard let bytes = lineBytes(for: event, cache: &cache) else { return }
    service.send(bytes, to: address)
  }

  func reply(_ line: String) {
    service.send(SharedBytes(string: line + "\n"), to: address)
  }

  func quit() {
    service.remove(self)
  }
}
