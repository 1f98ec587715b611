import Synchronization

/// How far the one consumer of ``WebSocketClient/events`` has got: how many events it has
/// asked for. A consumer that asks for event n + 1 is done with event n, and with the
/// replies it sent for it (each `send` reached the loop before it returned).
///
/// ``ClientChannel`` reads it to keep RFC 6455's order when the server's bytes end in a
/// protocol error: the close frame waits until the consumer has answered every message
/// before it (Autobahn's strict cases), instead of overtaking its echoes.
final class ConsumerProgress: Sendable {
  private let requested = Atomic<Int>(0)
  /// Run (once) at the consumer's next request, when the channel waits for one.
  private let waiter = Mutex<(@Sendable () -> Void)?>(nil)

  /// The number of events the consumer has asked for so far.
  var requestedCount: Int { requested.load(ordering: .acquiring) }

  /// The consumer asks for its next event.
  func consumerAsks() {
    requested.add(1, ordering: .releasing)
    if let waiter = waiter.withLock({ $0.take() }) { waiter() }
  }

  /// Runs `body` at the consumer's next request (replacing an earlier one). The caller
  /// checks ``requestedCount`` again after registering, since a request may come between.
  func onNextRequest(_ body: @escaping @Sendable () -> Void) {
    waiter.withLock { $0 = body }
  }

  /// Forgets a registered `body`.
  func cancelWaiter() {
    waiter.withLock { $0 = nil }
  }

  /// `events` as the consumer sees it: each request is counted, then served from `events`.
  func counting(_ events: AsyncStream<WebSocketClient.Event>) -> AsyncStream<WebSocketClient.Event> {
    let source = EventSource(events)
    return AsyncStream(unfolding: { [self] in
      consumerAsks()
      return await source.next()
    })
  }
}

/// The iterator of the inner stream, in a box the unfolding closure can hold.
// Safety: `WebSocketClient.events` is single-consumer (documented), so `next()` calls never
// overlap and the iterator is only ever used by one task at a time.
private final class EventSource: @unchecked Sendable {
  private var iterator: AsyncStream<WebSocketClient.Event>.Iterator

  init(_ events: AsyncStream<WebSocketClient.Event>) { iterator = events.makeAsyncIterator() }

  func next() async -> WebSocketClient.Event? { await iterator.next() }
}
