import SwitchboardIO
import SwitchboardRESP

extension RedisConnection {
  /// Subscribes to `names` (channels, patterns or shard channels); the completion runs when
  /// Redis confirmed every one. While not connected the names are remembered and the
  /// completion waits for the next connection, which subscribes to everything remembered.
  func subscribe(
    _ kind: RedisSubscriptions.Kind, _ names: [String], timeout: Duration?,
    _ completion: @escaping RedisSubscriptions.Completion
  ) {
    if state == .closed { return completion(.failure(.closed())) }
    guard !names.isEmpty else { return completion(.success(())) }
    pubsub.add(kind, names)
    let deadline = Deadline.now().adding(timeout ?? configuration.commandTimeout)
    guard state.isReady else { return pubsub.wait(until: deadline, completion) }
    send(kind, subscribe: true, names, deadline: deadline, completion)
  }

  /// Unsubscribes from `names`; while not connected that only forgets them.
  func unsubscribe(
    _ kind: RedisSubscriptions.Kind, _ names: [String], timeout: Duration?,
    _ completion: @escaping RedisSubscriptions.Completion
  ) {
    if state == .closed { return completion(.failure(.closed())) }
    guard !names.isEmpty else { return completion(.success(())) }
    pubsub.remove(kind, names)
    guard state.isReady else { return completion(.success(())) }
    let deadline = Deadline.now().adding(timeout ?? configuration.commandTimeout)
    send(kind, subscribe: false, names, deadline: deadline, completion)
  }

  /// Writes the (un)subscribe commands for `names` — one per slot for shard channels
  /// (``RedisSubscriptions/Kind/batches(_:)``) — and completes once Redis confirmed every
  /// name, or with the first failure.
  private func send(
    _ kind: RedisSubscriptions.Kind, subscribe: Bool, _ names: [String], deadline: Deadline,
    _ completion: @escaping RedisSubscriptions.Completion
  ) {
    let batches = kind.batches(names)
    var remaining = batches.count
    var finished = false
    for batch in batches {
      write(RESPCommand([subscribe ? kind.subscribeCommand : kind.unsubscribeCommand] + batch))
      pubsub.markSent(kind, batch, subscribed: subscribe)
      pubsub.expect(kind, subscribes: subscribe, count: batch.count, deadline: deadline) { result in
        guard !finished else { return }
        remaining -= 1
        if case .success = result, remaining > 0 { return }
        finished = true
        completion(result)
      }
    }
  }

  /// Sends the subscribe commands for everything remembered (on a new connection); `false`
  /// when there is nothing to subscribe to.
  func sendSubscriptions(deadline: Deadline, _ completion: @escaping RedisSubscriptions.Completion) -> Bool {
    let kinds = RedisSubscriptions.Kind.allCases.filter { !(pubsub.names[$0]?.isEmpty ?? true) }
    guard !kinds.isEmpty else { return false }
    var remaining = kinds.count
    var finished = false
    for kind in kinds {
      send(kind, subscribe: true, pubsub.names[kind, default: []].sorted(), deadline: deadline) { result in
        guard !finished else { return }
        if case .failure = result {
          finished = true
          return completion(result)
        }
        remaining -= 1
        if remaining == 0 {
          finished = true
          completion(.success(()))
        }
      }
    }
    return true
  }

  /// On a connection just ready: subscribes to names asked for during its handshake,
  /// unsubscribes from names dropped meanwhile, then answers the requests that waited for it.
  func reconcileSubscriptions() {
    let waiting = pubsub.takeWaiting()
    let (subscribe, unsubscribe) = pubsub.differences()
    let deadline = Deadline.now().adding(configuration.commandTimeout)
    for (kind, names) in unsubscribe { send(kind, subscribe: false, names, deadline: deadline) { _ in } }
    guard !subscribe.isEmpty else {
      for completion in waiting { completion(.success(())) }
      return
    }
    var remaining = subscribe.count
    var finished = false
    for (kind, names) in subscribe {
      send(kind, subscribe: true, names, deadline: deadline) { result in
        guard !finished else { return }
        remaining -= 1
        if case .success = result, remaining > 0 { return }
        finished = true
        for completion in waiting { completion(result) }
      }
    }
  }

  /// Handles a pub/sub event (`message`, `pmessage`, `smessage`, or a confirmation);
  /// `false` when `items` is not one.
  func subscriberEvent(_ items: [RESPValue]) -> Bool {
    guard let event = items.first?.string?.lowercased() else { return false }
    switch event {
    case "message", "smessage":
      guard items.count >= 3, let channel = items[1].string, let payload = items[2].bytes else {
        return false
      }
      deliver(
        RedisPubSubMessage(kind: event == "message" ? .channel : .shard, channel: channel, payload: payload))
    case "pmessage":
      guard items.count >= 4, let pattern = items[1].string, let channel = items[2].string,
        let payload = items[3].bytes
      else { return false }
      deliver(RedisPubSubMessage(kind: .pattern, channel: channel, pattern: pattern, payload: payload))
    case "subscribe", "psubscribe", "ssubscribe", "unsubscribe", "punsubscribe", "sunsubscribe":
      pubsub.confirm(event)?(.success(()))
    default:
      return false
    }
    return true
  }

  private func deliver(_ message: RedisPubSubMessage) {
    statistics.messages += 1
    messageHandler?(message)
  }
}
