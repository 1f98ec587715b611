import Dispatch
import Foundation
import SwitchboardClient
import Synchronization

/// `switchboard send URL TEXT…` (or `--service NAME`): one message over any transport the
/// client library speaks, then exit. It is a ``ChatClient`` that connects once (no
/// reconnects), sends, waits for the dialect's confirmation and closes.
enum SendCommand {
  static let help = """
    usage: switchboard send URL TEXT… [--name NAME] [--room ROOM] [--token TOKEN]
                            [--ca-file PEM | --insecure] [--timeout SECONDS]
           switchboard send --service NAME [--type TYPE] [--mdns BACKEND] TEXT… […]

    Sends TEXT (the remaining arguments joined by spaces) as one message and exits.
    URL is ws://host:1337/ or wss://host/ (WebSocket), tcp://host:8080 or
    tls://host:8443 (lines), udp://host:8081 (datagrams), or a DNS-SD service as
    dnssd://NAME._switchboard._tcp.local (spaces as %20; ._udp for datagrams): it is
    looked up over mDNS for up to 5 s, then sent to its first address that answers.
    With --name the message is sent as NAME (else the server names the sender); with
    --room it goes to ROOM (else the URL's /rooms/ROOM, else the server's lobby).
    \(ChatURL.help)
      --timeout SECONDS  how long connecting and delivering may take (default 10)
    --version prints the version and the commit it was built from.
    Delivered means: ws/wss, the server stored it (its ack); tcp/tls, the server
    answered a /who sent after it (it handles a connection's lines in order); udp, the
    server echoed it.
    The room and name are checked by the server's rules before connecting: a bad one is
    refused without sending anything. --timeout bounds the whole send on every scheme.
    Exit codes: 0 delivered, 1 could not find the service, connect (a certificate that
    does not verify included) or deliver in time, 2 refused (a bad room or name, no or
    a refused token, a room outside it, a 4xx answer: the reason is printed; nothing
    was posted), 64 bad usage.
    """

  static func run(_ argv: [String]) -> Int32 {
    let args: Arguments
    let target: ChatURL
    let words: [String]
    let timeout: Int
    do {
      args = try Arguments(
        argv, valued: ChatURL.flags.union(["name", "room", "timeout"]), booleans: ChatURL.booleans.union(["help"]))
      if let code = args.helpOrVersion(help) { return code }
      (target, words) = try ChatURL.parse(args)
      timeout = try args.int("timeout", in: 1...3600) ?? 10
    } catch {
      return Usage.fail("send", "\(error)")
    }
    // An empty text is not a message on any transport (the server ignores an empty line).
    guard !words.joined().allSatisfy({ $0 == " " || $0 == "\t" }) else {
      return Usage.fail("send", "needs a URL and some text")
    }
    // Connecting gets a little less than the whole time, so that when connecting is what
    // ran out, its own reason (no answer, a UDP proof not accepted, …) is the one printed.
    var configuration = ChatClient.Configuration(
      connectTimeout: .seconds(timeout) * 0.9, reconnect: .never, heartbeat: .disabled)
    configuration.lineSendCompletion = .handled
    configuration.resolver = target.resolver
    target.apply(to: &configuration, command: "send")
    let client = ChatClient(
      endpoint: target.endpoint, name: args.value("name") ?? "", room: args.value("room"),
      configuration: configuration)
    return deliver(words.joined(separator: " "), with: client, within: .seconds(timeout))
  }

  /// What finished first while delivering.
  private enum Step: Sendable {
    case delivered
    case eventsEnded
  }

  /// The time limit ran out before the message was confirmed.
  private struct DeliveryTimeout: Error, CustomStringConvertible {
    let limit: Duration
    var description: String { "no confirmation within \(limit)" }
  }

  /// The first error event, shared between the tasks of a delivery.
  private final class FirstError: Sendable {
    private let slot = Mutex<ChatClientError?>(nil)
    func note(_ error: ChatClientError) { slot.withLock { $0 = $0 ?? error } }
    var value: ChatClientError? { slot.withLock { $0 } }
  }

  /// Runs `client` until `text` is confirmed, or fails; prints why on failure.
  private static func deliver(_ text: String, with client: ChatClient, within limit: Duration) -> Int32 {
    let failure = Mutex<(String, Int32)?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
      // The first error event says best why a connect failed (the send itself then only
      // hears that the client stopped).
      let firstError = FirstError()
      do {
        try await client.run { session in
          try await withThrowingTaskGroup(of: Step.self) { group in
            group.addTask {
              for await event in session.events {
                if case .error(let e) = event { firstError.note(e) }
              }
              return .eventsEnded
            }
            group.addTask {
              try await Task.sleep(for: limit)
              throw DeliveryTimeout(limit: limit)
            }
            group.addTask {
              _ = try await session.send(text)
              return .delivered
            }
            do {
              while let step = try await group.next() {
                if case .delivered = step { break }
              }
            } catch {
              // Out of time (or failed): stop the client, so that the send still waiting
              // (a UDP peer that answers but never echoes) ends now and the group with it.
              session.close()
              group.cancelAll()
              throw error
            }
            group.cancelAll()
          }
        }
      } catch {
        // A refusal is the reason whatever else was reported before it.
        let known = client.refusal.map { ChatClientError.refused($0) } ?? firstError.value
        let reason = known.map { CLIFailure.describe($0) } ?? CLIFailure.describe(error)
        failure.withLock {
          $0 = (reason, known.map { CLIFailure.exitCode($0) } ?? CLIFailure.exitCode(error))
        }
      }
      done.signal()
    }
    done.wait()
    guard let (reason, code) = failure.withLock({ $0 }) else { return ExitCode.ok }
    Output.error("switchboard send: not delivered: \(reason)")
    return code
  }
}
