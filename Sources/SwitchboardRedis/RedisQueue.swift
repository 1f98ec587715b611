/// A first-in first-out queue over an array with a moving head: pushes and pops are O(1)
/// (amortized), and the popped prefix is dropped once it is most of the storage. Holds the
/// commands in flight, whose replies come back in the order they were sent.
struct RedisQueue<Element> {
  private var storage: [Element] = []
  private var head = 0

  var count: Int { storage.count - head }
  var isEmpty: Bool { head == storage.count }
  var first: Element? { isEmpty ? nil : storage[head] }

  mutating func append(_ element: Element) { storage.append(element) }

  mutating func popFirst() -> Element? {
    guard head < storage.count else { return nil }
    let element = storage[head]
    head += 1
    if head == storage.count {
      storage.removeAll(keepingCapacity: storage.capacity <= 4096)
      head = 0
    } else if head >= 1024 && head * 2 >= storage.count {
      storage.removeSubrange(0..<head)
      head = 0
    }
    return element
  }

  /// Empties the queue, returning what it held in order.
  mutating func removeAll() -> [Element] {
    let elements = Array(storage[head...])
    storage.removeAll()
    head = 0
    return elements
  }

  /// Whether any element satisfies `predicate`.
  func contains(where predicate: (Element) -> Bool) -> Bool {
    storage[head...].contains(where: predicate)
  }

  /// Removes the elements `predicate` selects, keeping the others' order; returns the removed.
  mutating func removeAll(where predicate: (Element) -> Bool) -> [Element] {
    guard contains(where: predicate) else { return [] }
    var kept: [Element] = []
    var removed: [Element] = []
    for element in storage[head...] {
      if predicate(element) { removed.append(element) } else { kept.append(element) }
    }
    storage = kept
    head = 0
    return removed
  }
}
