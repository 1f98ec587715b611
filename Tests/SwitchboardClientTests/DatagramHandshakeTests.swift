import Testing

@testable import SwitchboardClient

/// The `udp://` client's address proof, as a state machine without sockets.
@Suite(.onTestThreads)
struct DatagramHandshakeTests {
  private let code = "0123456789abcdef"

  @Test func theClientAsksProvesAndThenSaysHello() {
    var h = DatagramHandshake(hello: ["iam:ann", "/join ops"])
    #expect(h.first.hasPrefix("/ok ") && h.first.utf8.count == 64)
    var action = h.receive("Server received: /ok")
    #expect(action == .none)
    #expect(h.retransmission == h.first)
    action = h.receive("* send /ok \(code) to chat")
    #expect(action == .send(["/ok \(code)"]))
    #expect(h.retransmission == "/ok \(code)")
    action = h.receive("* ok, you are in lobby")
    #expect(action == .connected(["iam:ann", "/join ops"]))
    #expect(h.retransmission == nil)
    action = h.receive("* ok, you are in lobby")
    #expect(action == .none)  // a repeated acceptance
    action = h.receive("bob: hi")
    #expect(action == .deliver)
  }

  @Test func aRefusalBeforeAcceptanceFailsTheConnect() {
    var h = DatagramHandshake(hello: [])
    var action = h.receive("! authentication required: x")
    #expect(action == .refused("authentication required: x"))
    var full = DatagramHandshake(hello: [])
    _ = full.receive("* send /ok \(code) to chat")
    action = full.receive("! too many UDP members (1); y")
    #expect(action == .refused("too many UDP members (1); y"))
  }

  @Test func anOlderServerThatKnowsNoProofIsConnectedTo() {
    var h = DatagramHandshake(hello: ["iam:ann"])
    let action = h.receive("! unknown command /ok (try /help)")
    #expect(action == .connected(["iam:ann"]))
  }

  @Test func aServerThatForgotTheAddressIsProvenToAgainWithMessagesHeld() {
    var h = DatagramHandshake(hello: ["iam:ann"])
    _ = h.receive("* send /ok \(code) to chat")
    _ = h.receive("* ok, you are in lobby")
    var sent = h.outgoing("msg:one")
    #expect(sent == "msg:one")
    let next = "fedcba9876543210"
    var action = h.receive("* send /ok \(next) to chat")
    #expect(action == .send(["/ok \(next)"]))
    #expect(h.retransmission == "/ok \(next)")
    sent = h.outgoing("msg:two")
    #expect(sent == nil)
    action = h.receive("Server received: /ok \(next)")
    #expect(action == .deliver)
    action = h.receive("* ok, you are in lobby")
    #expect(action == .send(["iam:ann", "msg:two"]))
    sent = h.outgoing("msg:three")
    #expect(sent == "msg:three")
  }

  @Test func aTimeoutSaysHowFarTheProofGot() {
    var h = DatagramHandshake(hello: [])
    #expect(h.timeoutReason(server: "h:1", after: .seconds(1)).hasPrefix("no answer from udp://h:1"))
    _ = h.receive("Server received: /ok")
    #expect(h.timeoutReason(server: "h:1", after: .seconds(1)).contains("offered no code"))
    _ = h.receive("* send /ok \(code) to chat")
    #expect(h.timeoutReason(server: "h:1", after: .seconds(1)).contains("did not accept"))
  }
}
