import Foundation
import Synchronization
import SwitchboardChat
import SwitchboardDiscovery
import SwitchboardRedis
import SwitchboardServer
import SwitchboardTLS

/// `serve`'s webhook flags (docs/API.md, "Webhooks"): `--webhook URL` (repeatable),
/// `--webhook-secret S` or `--webhook-secret-file F`, `--webhook-events LIST`,
/// `--webhook-queue N`, `--webhook-timeout SECONDS`.
struct ServeWebhookOptions {
  static let valued: Set<String> = [
    "webhook", "webhook-secret", "webhook-secret-file", "webhook-events", "webhook-queue", "webhook-timeout",
  ]

  static let help = """
      --webhook URL             POST signed JSON batches of room and member events to this
                                http:// or https:// URL; repeatable (each target gets every
                                event, from a queue of its own; docs/API.md, "Webhooks")
      --webhook-secret S        the HMAC-SHA256 key the batches are signed with (32+ bytes;
                                visible in `ps`: prefer --webhook-secret-file)
      --webhook-secret-file F   the same, read from F (one trailing newline dropped)
      --webhook-events LIST     comma-separated: room.occupied, room.vacated, member.joined,
                                member.left, message.published (default: all but
                                message.published)
      --webhook-queue N         events waiting per target before new ones are dropped
                                (default 10000)
      --webhook-timeout SECONDS how long a receiver has to answer one POST (default 5)
    """

  /// The settings read from the flags, before the node's name is known.
  let targets: [OutboundURL]
  let secret: [UInt8]
  let events: Set<WebhookEventType>
  let queueLimit: Int
  let timeout: Duration

  /// Reads the flags; `nil` when no `--webhook` is given (then no other webhook flag may be).
  /// - Throws: `Arguments.UsageError` for a bad URL, a missing or short secret, an unknown
  ///   event, a webhook flag without `--webhook`.
  static func parse(_ args: Arguments) throws -> ServeWebhookOptions? {
    let urls = args.values("webhook")
    guard !urls.isEmpty else {
      if let flag = valued.sorted().first(where: { args.value($0) != nil }) {
        throw Arguments.UsageError(description: "--\(flag) needs --webhook URL")
      }
      return nil
    }
    var targets: [OutboundURL] = []
    for url in urls {
      do {
        targets.append(try OutboundURL(url))
      } catch {
        throw Arguments.UsageError(description: "--webhook: \(error)")
      }
      if targets.last?.scheme == .https, !TLSSupport.isAvailable {
        throw Arguments.UsageError(description: "--webhook \(url): \(TLSSupport.unavailableReason())")
      }
    }
    var secrets: [[UInt8]] = args.values("webhook-secret").map { Array($0.utf8) }
    for path in args.values("webhook-secret-file") {
      guard var bytes = FileManager.default.contents(atPath: path).map(Array.init) else {
        throw Arguments.UsageError(description: "--webhook-secret-file: cannot read \(path)")
      }
      if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
      if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
      secrets.append(bytes)
    }
    guard secrets.count == 1, let secret = secrets.first else {
      throw Arguments.UsageError(
        description: secrets.isEmpty
          ? "--webhook needs --webhook-secret or --webhook-secret-file (receivers verify every batch with it)"
          : "give one webhook secret (--webhook-secret or --webhook-secret-file, once)")
    }
    var events = WebhookEventType.defaults
    if let list = args.value("webhook-events") {
      do {
        events = try WebhookEventType.parseList(list)
      } catch {
        throw Arguments.UsageError(description: "--webhook-events: \(error)")
      }
    }
    let queue = try args.int("webhook-queue", in: 1...10_000_000) ?? WebhookConfiguration.defaultQueueLimit
    let timeout = try args.double("webhook-timeout") ?? 5
    guard timeout > 0, timeout <= 3600 else {
      throw Arguments.UsageError(description: "--webhook-timeout must be above 0 and at most 3600 seconds")
    }
    let options = ServeWebhookOptions(
      targets: targets, secret: secret, events: events, queueLimit: queue, timeout: .milliseconds(Int(timeout * 1000)))
    // The secret's length (and HMAC support) is checked now, not when the server starts.
    _ = try options.configuration(node: "check")
    return options
  }

  private func configuration(node: String) throws -> WebhookConfiguration {
    do {
      return try WebhookConfiguration(
        targets: targets, secret: secret, events: events, node: node, queueLimit: queueLimit, timeout: timeout)
    } catch {
      throw Arguments.UsageError(description: "\(error)")
    }
  }

  /// Wraps `config`'s broker so that its events go to the targets, and adds the webhook
  /// counters to `/metrics`. The node's name in each batch is the Redis broker's node id
  /// under `--redis`, else this machine's host name.
  func install(into config: inout ServerConfiguration) {
    let makeInner = config.broker
    let slot = Slot()
    config.broker = { [self] c in
      let inner = try makeInner?(c) ?? LocalRoomBroker(retention: c.historyLimit)
      let node = (inner as? RedisRoomBroker)?.configuration.nodeID ?? MDNSAdvertiser.machineHostName()
      let client = try OutboundHTTPClient(configuration: OutboundHTTPConfiguration(timeout: timeout))
      let dispatcher = WebhookDispatcher(configuration: try configuration(node: node), client: client)
      slot.set(dispatcher)
      c.logger.info(
        "webhooks on", metadata: ["targets": "\(targets.count)", "events": events.map(\.rawValue).sorted().joined(separator: ",")])
      return WebhookBroker(inner: inner, dispatcher: dispatcher)
    }
    let otherMetrics = config.additionalMetrics
    config.additionalMetrics = { (otherMetrics?() ?? "") + slot.prometheusText }
  }

  /// The dispatcher, once the server made it (for `/metrics`).
  final class Slot: Sendable {
    private let dispatcher = Mutex<WebhookDispatcher?>(nil)
    func set(_ value: WebhookDispatcher) { dispatcher.withLock { $0 = value } }
    var prometheusText: String { dispatcher.withLock { $0 }?.prometheusText() ?? "" }
  }
}
