import SwitchboardChat

/// Every node's latest sample under `--redis` (the admin console's node list): each node
/// stores its own once a second through the room broker, whether or not a console is open
/// anywhere — a console on one node must see the others, which cannot know it is open —
/// and any node reads them all. A single node's broker keeps nothing: the list is this node.
extension ServerCore {
  /// A node whose sample is older than this (ms) is not listed: it stopped or lost Redis.
  static let nodeLiveAge: Int64 = 5_000
  /// A node whose sample is older than this (ms) is forgotten (its field deleted).
  static let nodeForgetAge: Int64 = 60_000

  /// Stores `sample` for the other nodes, when the broker shares statuses (on the first
  /// loop, right after the sample; the broker's own loop does the I/O).
  func shareStatus(_ sample: ServerSample) {
    let broker = hub.broker
    guard broker.sharesNodeStatus else { return }
    broker.storeNodeStatus(node: sample.node, Array(sample.json.encoded().utf8))
  }

  /// This node's latest sample first (with its room rates), then every other live node's
  /// (``nodeLiveAge``), by node id; forgets nodes silent for ``nodeForgetAge``. When the
  /// broker cannot be read, this node alone. `completion` runs on `executor`.
  func nodeSamples(on executor: any ShardExecutor, completion: @escaping @Sendable ([ServerSample]) -> Void) {
    let own = sampler.latest
    let node = configuration.api.nodeID
    let broker = hub.broker
    broker.nodeStatuses(on: executor) { result in
      let statuses = (try? result.get()) ?? []
      let (others, gone) = Self.liveNodes(statuses, except: node, now: ChatClock.milliseconds())
      if !gone.isEmpty { broker.forgetNodeStatuses(gone) }
      completion((own.map { [$0] } ?? []) + others)
    }
  }

  /// The samples among `statuses` that decode, are not node `own`'s, and are at most
  /// ``nodeLiveAge`` old at `now` (ms), by node id; and the nodes to forget: those at least
  /// ``nodeForgetAge`` old, and those whose bytes do not decode.
  static func liveNodes(_ statuses: [NodeStatus], except own: String, now: Int64) -> (
    live: [ServerSample], gone: [String]
  ) {
    var live: [ServerSample] = []
    var gone: [String] = []
    for status in statuses where status.node != own {
      guard let sample = try? ServerSample(json: status.bytes), sample.node == status.node else {
        gone.append(status.node)
        continue
      }
      let age = now - sample.time
      if age >= nodeForgetAge {
        gone.append(status.node)
      } else if age <= nodeLiveAge {
        live.append(sample)
      }
    }
    return (live.sorted { $0.node < $1.node }, gone)
  }
}
