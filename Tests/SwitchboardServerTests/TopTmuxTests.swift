import Foundation
import SwitchboardIO
import SwitchboardTestSupport
import Testing

/// `switchboard top` in a real terminal (tmux's) against a real `serve --admin-password`
/// with line members talking in a room: the screen shows the room and a non-zero rate, and
/// `q` quits with 0, the terminal's settings as they were before.
@Suite(
  .onTestThreads, .serialized,
  .enabled(ifAvailable: Executables.switchboard != nil, "switchboard binary not built"),
  .enabled(ifAvailable: Executables.tool("tmux") != nil, "tmux not installed"))
struct TopTmuxTests {
  static let password = "top-tmux-password"

  @Test func theScreenShowsTheRoomAndItsRateAndQQuitsRestoringTheTerminal() async throws {
    let server = try await ServeProcess.start(["--ephemeral", "--admin-password", Self.password])
    defer { server.signal(SIGTERM) }
    let talker = try LineClient(SocketAddress(host: "127.0.0.1", port: server.tcp))
    try talker.join(as: "talker")
    try talker.sendLine("/join ops")
    _ = try talker.expectLine { $0.hasPrefix("* you are now in ops") }
    let listener = try LineClient(SocketAddress(host: "127.0.0.1", port: server.tcp))
    try listener.join(as: "listener")
    try listener.sendLine("/join ops")
    _ = try listener.expectLine { $0.hasPrefix("* you are now in ops") }
    let session = "sbtop-\(getpid())"
    defer { _ = try? runTool(["tmux", "kill-session", "-t", session]) }
    // The shell records the terminal's settings before and after, and what top exited with.
    let script =
      "before=$(stty -g); SWITCHBOARD_ADMIN_PASSWORD=\(Self.password) \(Executables.switchboard!) top "
      + "127.0.0.1:\(server.http) --room ops; code=$?; "
      + #"[ "$(stty -g)" = "$before" ] && s=restored || s=changed; echo "top exited $code, terminal $s"; sleep 60"#
    try runTool(["tmux", "new-session", "-d", "-s", session, "-x", "120", "-y", "40", "sh", "-c", script])
    let pane = { (try? runTool(["tmux", "capture-pane", "-t", session, "-p"])) ?? "" }
    // The talker says a line at every look at the screen, so the room's rate stays above 0.
    var said = 0
    try await eventually(timeout: .seconds(20), "the room with a non-zero rate, its members and messages") {
      said += 1
      try talker.sendLine("line \(said)")
      let screen = pane()
      let rate = screen.split(separator: "\n").first { $0.hasPrefix("  ops ") }.flatMap { line in
        line.split(separator: " ").dropFirst(2).first.flatMap { Double($0) }
      }
      return (rate ?? 0) > 0 && screen.contains("ROOM ops (2 members)") && screen.contains("talker: line ")
    }
    try runTool(["tmux", "send-keys", "-t", session, "q"])
    try await eventually(timeout: .seconds(10), "top quit") {
      pane().contains("top exited 0, terminal restored")
    }
  }
}
