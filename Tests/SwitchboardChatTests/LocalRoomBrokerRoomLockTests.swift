import Dispatch
import SwitchboardChat
import SwitchboardTestSupport
import SwitchboardWire
import Synchronization
import Testing

/// The local broker's rooms have sequence locks of their own: a publish
/// to one room does not wait for another room's publish that is still inside the broker.
@Suite(.onTestThreads)
struct LocalRoomBrokerRoomLockTests {
  /// A sink whose delivery of room `a` waits until the test lets it go, so room a's
  /// publish stays inside the broker (under its room's lock) meanwhile.
  final class HoldingSink: RoomBrokerSink {
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let delivered = Mutex<[String]>([])

    func deliver(_ message: ChatMessage, epoch: String, origin: MemberID?) {
      if message.room == "a" {
        entered.signal()
        _ = release.wait(timeout: .now() + 10)
      }
      delivered.withLock { $0.append("\(message.room)#\(message.id)") }
    }
    func keepFailed(room: String, id: UInt64?, error: BrokerError) {}
  }

  @Test func aPublishHeldInOneRoomDoesNotHoldAnother() throws {
    let broker = LocalRoomBroker(retention: 10, loader: InlineExecutor())
    let sink = HoldingSink()
    broker.attach(sink)
    for room in ["a", "b"] {
      broker.openRoom(room, recent: 0, on: InlineExecutor()) { _ in }
    }
    let a = Self.draft("a")
    let b = Self.draft("b")
    let held = DispatchGroup()
    DispatchQueue.global().async(group: held) { broker.publish(a, on: nil, completion: nil) }
    guard sink.entered.wait(timeout: .now() + 10) == .success else {
      throw TestFailure("room a's publish never reached the sink")
    }
    // Room a's publish is inside the broker now; room b's must not wait for it.
    let other = DispatchGroup()
    DispatchQueue.global().async(group: other) { broker.publish(b, on: nil, completion: nil) }
    let passed = other.wait(timeout: .now() + 5) == .success
    sink.release.signal()
    #expect(passed, "room b's publish waited for room a's")
    #expect(held.wait(timeout: .now() + 10) == .success)
    #expect(sink.delivered.withLock { $0 } == ["b#1", "a#1"])
    broker.close()
  }

  static func draft(_ room: String) -> MessageDraft {
    MessageDraft(
      ChatMessage(id: 0, room: room, time: 0, author: "x", color: "red", text: "t", isAction: false))
  }
}
