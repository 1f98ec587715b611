import Foundation
import SwitchboardTestSupport
import Testing

/// `scripts/discovery/interop-client.sh`: `switchboard chat` and `send` reach a
/// `switchboard serve` by its advertised name from another network namespace, and the chats
/// follow it when it restarts on other ports. Runs only with `SWITCHBOARD_INTEROP=1`, as root
/// where `ip netns` works and the binary is built (``InteropEnvironment``).
@Suite(
  .enabled(ifAvailable: InteropEnvironment.skipReason == nil, Comment(rawValue: InteropEnvironment.skipReason ?? "")),
  .onTestThreads)
struct ClientInteropScriptTests {
  @Test(.timeLimit(.minutes(3)))
  func chatAndSendConnectByNameAndReResolveAfterARestartOnOtherPorts() throws {
    let (status, text) = try InteropEnvironment.runScript("interop-client.sh")
    #expect(status == 0, "\(text)")
    for line in [
      "PASS send --service 'SB Target'", "PASS chat by name", "PASS restart: the line chat re-resolved",
      "PASS restart: the WebSocket chat re-resolved",
      "PASS restart: a message sent after the restart goes through",
    ] {
      #expect(text.contains(line), "\(text)")
    }
  }
}
