import SwitchboardWire

/// The last `capacity` messages of a room, oldest first, in id order.
struct MessageRing {
  private var storage: [ChatMessage] = []
  private var start = 0
  let capacity: Int

  init(capacity: Int) { self.capacity = max(0, capacity) }

  var count: Int { storage.count }

  mutating func append(_ message: ChatMessage) {
    guard capacity > 0 else { return }
    if storage.count < capacity {
      storage.append(message)
    } else {
      storage[start] = message
      start = (start + 1) % capacity
    }
  }

  private func element(_ i: Int) -> ChatMessage { storage[(start + i) % storage.count] }

  /// The newest `n` messages, oldest first.
  func last(_ n: Int) -> [ChatMessage] {
    let k = min(max(n, 0), storage.count)
    return (storage.count - k..<storage.count).map(element)
  }

  /// Messages with an id greater than `id`, oldest first.
  func after(_ id: UInt64) -> [ChatMessage] {
    guard let first = storage.isEmpty ? nil : element(0) else { return [] }
    let skip = id >= first.id ? Int(min(id - first.id + 1, UInt64(storage.count))) : 0
    return (skip..<storage.count).map(element)
  }
}
