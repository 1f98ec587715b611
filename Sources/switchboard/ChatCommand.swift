import Dispatch
import Foundation
import SwitchboardWire
import Synchronization
import SwitchboardClient

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `switchboard chat URL [--name N] [--room R] [--pipe]`: a terminal chat client.
///
/// Interactive when stdin and stdout are terminals (and `--pipe` is not given): the
/// transcript scrolls above, a status line (connection state, reconnect countdown) and
/// the input line sit below; the terminal is in raw mode (termios) and restored on exit,
/// Ctrl-C, Ctrl-D, SIGINT, SIGTERM and SIGHUP. Pipe mode: each stdin line is sent as a
/// message, received messages are printed as `AUTHOR: TEXT`, and the command exits once
/// stdin ends and everything read was sent.
enum ChatCommand {
  static let help = """
    usage: switchboard chat URL [--name NAME] [--room ROOM] [--pipe] [--log-level LEVEL]
                            [--token TOKEN | --token-command CMD] [--ca-file PEM | --insecure]
           switchboard chat --service NAME [--type TYPE] [--mdns BACKEND] [--name NAME] …

    A chat client. URL is ws://host:1337/ or wss://host/ (WebSocket), tcp://host:8080
    or tls://host:8443 (lines), udp://host:8081 (datagrams), or a DNS-SD service by
    name: dnssd://NAME._switchboard._tcp.local (spaces as %20; the type picks the
    transport, see --type), looked up over mDNS before every connect and reconnect, so
    a server that restarts on another port or address is found again.
      --name NAME        your name (asked for on a terminal; else $USER). A server
                         without tokens makes a name taken in the room unique (NAME (2));
                         the status line shows the name the server confirmed
      --room ROOM        the room to join (else the URL's /rooms/ROOM, else the server's
                         lobby); 1-64 letters, digits, - _ .
      --pipe             no screen even on a terminal: stdin lines are sent, received
                         messages printed as AUTHOR: TEXT (actions as * AUTHOR ACTION),
                         and the command exits at the end of its input
    \(ChatURL.help)
      --log-level LEVEL  write the client library's log to stderr (trace, debug, info,
                         notice, warning, error, critical; default: no log)
      --log-format FMT   the log as text (default) or json lines
      --version          print the version and the commit it was built from
      --wait SECONDS     pipe: keep trying to reach a server that is down for up to
                         SECONDS before giving up (default 0: give up at the first
                         failed connect, as send does); once connected, a lost
                         connection is retried up to 8 times

    Interactive on a terminal: type a message and press Enter; Left/Right (Ctrl-B/F),
    Home/End (Ctrl-A/E), Backspace/Delete, Ctrl-U/Ctrl-K edit the line, Up/Down recall
    the lines sent; Ctrl-C, or Ctrl-D on an empty line, quits. Colours follow NO_COLOR
    and are off when stdout is not a terminal.
    Commands, on every transport (typed, or piped in with --pipe):
    \(ChatInput.helpLines.dropFirst().joined(separator: "\n"))
    (as `nc` users have them: docs/PROTOCOLS.md, "The command language"). /join and
    /nick connect again, in the new room or under the new name.
    A refusal retrying cannot fix (a bad room or name, no token or a refused one, a room
    outside the token, a 4xx answer to the WebSocket upgrade) ends the chat with the
    server's reason.
    Exit codes: 0 ok, 1 could not connect (a certificate that does not verify included)
    or send (or find the service), 2 refused by the server (the reason is printed),
    64 bad usage.
    """

  static func run(_ argv: [String]) -> Int32 {
    let args: Arguments
    let target: ChatURL
    do {
      args = try Arguments(
        argv, valued: LogOptions.flags.union(ChatURL.flags).union(["name", "room", "wait"]),
        booleans: ChatURL.booleans.union(["help", "pipe"]))
      if let code = args.helpOrVersion(help) { return code }
      let rest: [String]
      (target, rest) = try ChatURL.parse(args)
      guard rest.isEmpty else {
        throw Arguments.UsageError(description: "needs exactly one URL (or --service NAME)")
      }
    } catch {
      return Usage.fail("chat", "\(error)")
    }
    let wait: Int
    do {
      wait = try args.int("wait", in: 0...86_400) ?? 0
    } catch {
      Output.error("switchboard chat: \(error)")
      return ExitCode.usage
    }
    let interactive = !args.flag("pipe") && isatty(0) == 1 && isatty(1) == 1
    var name = args.value("name") ?? ""
    if name.isEmpty {
      if interactive {
        FileHandle.standardOutput.write(Data("name: ".utf8))
        name = (readLine() ?? "").trimmingCharacters(in: .whitespaces)
      }
      if name.isEmpty { name = ProcessInfo.processInfo.environment["USER"] ?? "anonymous" }
    }
    var configuration = ChatClient.Configuration()
    do {
      configuration.logger = try LogOptions(args, defaultLevel: nil).logger()
    } catch {
      return Usage.fail("chat", "\(error)")
    }
    var resolver = target.resolver
    resolver.logger = configuration.logger.child(label: "switchboard.chat.mdns")
    configuration.resolver = resolver
    target.apply(to: &configuration, command: "chat")
    if !interactive {
      // The pipe decides when to give up (ChatPipeLimits): before the first connection after
      // --wait, after one after 8 attempts in a row.
      configuration.reconnect = ReconnectPolicy(maximumDelay: .seconds(wait > 0 ? 1 : 5))
    }
    let endpoint = target.endpoint
    let settings = configuration
    let makeClient: @Sendable (String?, String) -> ChatClient = { room, name in
      ChatClient(endpoint: endpoint, name: name, room: room, configuration: settings)
    }
    // The terminal screen runs on the main thread, which is the main actor's (the view
    // model's) as long as the screen's loop turns the run loop.
    return interactive
      ? MainActor.assumeIsolated { ChatTerminalUI(makeClient: makeClient, room: args.value("room"), name: name).run() }
      : runPipe(makeClient, room: args.value("room"), name: name, limits: ChatPipeLimits(wait: .seconds(wait)))
  }

  // MARK: Pipe mode

  /// `/join` and `/nick` (``ChatTyped``) end a client's run and start the next one.
  private static func runPipe(
    _ makeClient: @escaping @Sendable (String?, String) -> ChatClient, room: String?, name: String,
    limits: ChatPipeLimits
  ) -> Int32 {
    let code = Atomic<Int32>(ExitCode.ok)
    let done = DispatchSemaphore(value: 0)
    let lines = stdinLines()
    // The `/who` and `/rooms` lines sent whose answers are still to come: those are printed,
    // the answer to the pipe's own question before it leaves a client (below) is not.
    let whoAsked = PipeCounter(), roomsAsked = PipeCounter()
    // Every members answer, counted: the pipe's question is answered once the count passes
    // what it was when asked (the client merges a question into one already waiting).
    let membersAnswered = PipeCounter()
    // The first failure that ends the pipe is the one printed, once.
    let report = { @Sendable (error: any Error) in
      if code.compareExchange(expected: ExitCode.ok, desired: CLIFailure.exitCode(error), ordering: .relaxed)
        .exchanged
      {
        Output.error("switchboard chat: \(CLIFailure.describe(error))")
      }
    }
    // The server's answer to the request made at the end of input (see below).
    let (answered, answer) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    Task {
      var next = ChatTyped.Next.reconnect(room: room, name: name)
      while case .reconnect(let room, let name) = next {
        let client = makeClient(room, name)
        do {
          next = try await client.run { session in
            await withTaskGroup(of: ChatTyped.Next?.self) { group in
              group.addTask {
                var resuming = false
                var limits = limits
                for await event in session.events {
                  switch event {
                  case .message(let m) where !m.isMine: Output.print(line(m))
                  case .members(let room, let names):
                    if whoAsked.take() { Output.print(ChatTyped.members(room: room, names: names)) }
                    membersAnswered.add()
                    answer.yield()
                  case .rooms(let rooms):
                    _ = roomsAsked.take()
                    Output.print(ChatTyped.rooms(rooms))
                    answer.yield()
                  // Every message of the answer, the pipe's own too: a view asked for.
                  case .recent(let messages): for m in messages { Output.print(ChatTyped.recent(m)) }
                  // The line dialect's `* ` lines: others' actions (`* bob waves`, not told
                  // apart from the server's notices there) and the answers to commands.
                  case .notice(let text): Output.print(LineDialect.escape(text))
                  case .reconnectSuggested(let reason), .disconnected(let reason, .goingAway?):
                    Output.print(ChatTyped.goingAway(reason))
                  case .history(let messages, _, _):
                    // The first backlog is not what a pipe asked for; after a reconnect the
                    // history is what was missed meanwhile, and dropping it lost messages
                    // (found by benchmarks/soak.sh).
                    if resuming { for m in messages where !m.isMine { Output.print(line(m)) } }
                    resuming = true
                  case .connected: limits.connected()
                  case .error(let e) where e == .refused:
                    report(e)  // the last event: the client stopped
                  case .error(let e):
                    limits.failed(e)  // the reason printed if the pipe gives up
                  case .reconnecting(let attempt, _):
                    if let last = limits.givesUp(attempt: attempt, at: .now) {
                      report(last)
                      session.close()
                    }
                  default: break
                  }
                }
                return nil
              }
              group.addTask {
                var next = ChatTyped.Next.quit
                for await line in lines {
                  switch ChatInput.parse(line) {
                  case .who: whoAsked.add()
                  case .rooms: roomsAsked.add()
                  default: break
                  }
                  do {
                    next = try await ChatTyped.pipe(line, session: session, room: room, name: name)
                    if next != .goOn { break }
                  } catch {
                    report(error)
                    return .quit
                  }
                }
                // Cancelled: the client ended first (refused, given up) and said why.
                if Task.isCancelled { return .quit }
                // One round trip before leaving this client (the input's end, `/quit`, `/join`,
                // `/nick`): the server has then handled every line sent (a line send completes
                // once written) and its answers to them are printed, and a server that refuses
                // this client (no token: it answers the first line and closes) has said so,
                // which ends the client and this group with the reason.
                let before = membersAnswered.value
                try? await session.client.requestMembers()
                await withTaskGroup(of: Void.self) { wait in
                  // Answered once every question of the pipe's is (the client merges a question
                  // into one of the same kind still waiting) and a members answer came after.
                  wait.addTask {
                    for await _ in answered
                    where whoAsked.value == 0 && roomsAsked.value == 0 && membersAnswered.value > before { break }
                  }
                  wait.addTask { try? await Task.sleep(for: .seconds(5)) }
                  await wait.next()
                  wait.cancelAll()
                }
                return next == .goOn ? .quit : next
              }
              // Whichever ends first (the input, a /join or /nick, or the client: refused,
              // given up) ends both.
              let first = await group.next() ?? nil
              session.close()
              group.cancelAll()
              return first ?? .quit
            }
          }
        } catch {
          report(error)
          next = .quit
        }
      }
      done.signal()
    }
    done.wait()
    return code.load(ordering: .relaxed)
  }

  /// A received message as pipe mode prints it, `AUTHOR: TEXT`: escaped as the line dialect
  /// escapes it (``LineEscape``), so a text with a line break in it is one line of output
  /// and cannot print a line that reads as another author's.
  static func line(_ m: ChatClient.Message) -> String { ChatTyped.line(m) }

  /// Stdin's lines, read by a thread of their own (reads block).
  private static func stdinLines() -> AsyncStream<String> {
    let (stream, continuation) = AsyncStream.makeStream(of: String.self)
    let thread = Thread {
      while let line = readLine(strippingNewline: true) { continuation.yield(line) }
      continuation.finish()
    }
    thread.start()
    return stream
  }
}

/// A count one of the pipe's tasks keeps and the other reads: the `/who` requests not
/// answered yet (counted up by the input task, down by the event task), the answers.
private final class PipeCounter: Sendable {
  private let count = Atomic<Int>(0)
  func add() { count.add(1, ordering: .relaxed) }
  var value: Int { count.load(ordering: .relaxed) }
  /// Counts one answer down; false when none was outstanding.
  func take() -> Bool {
    var current = count.load(ordering: .relaxed)
    while current > 0 {
      let (exchanged, original) = count.compareExchange(
        expected: current, desired: current - 1, ordering: .relaxed)
      if exchanged { return true }
      current = original
    }
    return false
  }
}

/// The interactive screen: transcript, status line, input line. On the main actor, with the
/// view model; the input thread only edits ``Screen`` and hands lines to the main actor.
@MainActor
final class ChatTerminalUI: Sendable {
  private struct Screen {
    var editor = ChatLineEditor()
    var dirty = true
    var quit = false
  }

  private let model: ChatViewModel
  private let screen = Mutex(Screen())
  private let colors: Bool
  /// The name the next client is made with (`/nick` changes it).
  private let name: ChatName

  /// `makeClient(room, name)` makes each run's client: the first joins `room`, later ones
  /// the room `/join` named.
  init(makeClient: @escaping @Sendable (String?, String) -> ChatClient, room: String?, name: String) {
    let current = ChatName(name)
    self.name = current
    self.model = ChatViewModel(maxUpdatesPerSecond: 30, maxItems: 2000) { asked throws(ChatClientError) in
      makeClient(asked ?? room, current.value)
    }
    self.colors = ProcessInfo.processInfo.environment["NO_COLOR"].map(\.isEmpty) ?? true
  }

  func run() -> Int32 {
    TerminalMode.enterRaw()
    TerminalMode.restoreOnSignals()
    model.start()
    let input = Thread { [self] in readInput() }
    input.start()
    var lastUpdates = -1
    // A refusal stops the client for good: leave with its reason rather than a dead screen.
    while !screen.withLock({ $0.quit }) && model.client?.refusal == nil {
      let updates = model.publishedUpdates
      let reconnecting = if case .reconnecting = model.connectionState { true } else { false }
      let dirty = screen.withLock { s in
        defer { s.dirty = false }
        return s.dirty
      }
      if dirty || updates != lastUpdates || reconnecting {
        lastUpdates = updates
        render()
      }
      // Runs the main actor's jobs (the client's events, the model's flushes) meanwhile.
      RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.033))
    }
    let refusal = model.client?.refusal
    model.stop()
    TerminalMode.restore()
    if let refusal {
      Output.error("switchboard chat: \(CLIFailure.describe(ChatClientError.refused(refusal)))")
      return ExitCode.refused
    }
    return ExitCode.ok
  }

  // MARK: Input

  nonisolated private func readInput() {
    var byte: UInt8 = 0
    while true {
      let n = read(0, &byte, 1)
      if n <= 0 {
        if n < 0 && errno == EINTR { continue }
        screen.withLock { $0.quit = true }
        return
      }
      let outcome = screen.withLock { s in
        let outcome = s.editor.feed(byte)
        if outcome != .none { s.dirty = true }
        if outcome == .quit { s.quit = true }
        return outcome
      }
      switch outcome {
      case .quit: return
      case .submit(let line):
        let input = ChatInput.parse(line)
        if input == .quit {
          screen.withLock { $0.quit = true }
          return
        }
        Task { @MainActor in self.perform(input) }
      case .none, .edited: break
      }
    }
  }

  /// Carries out what was typed: `/nick` here (the model's clients are made with ``name``),
  /// everything else by the view model.
  private func perform(_ input: ChatInput) {
    let model = self.model
    if case .nick(let newName) = input {
      name.value = newName
      model.stop()
      model.start()
      return
    }
    Task { @MainActor in
      do { try await model.perform(input) } catch {
        model.receive(.notice("error: \(error)"))
      }
    }
  }

  // MARK: Drawing

  private func render() {
    var size = winsize()
    if ioctl(1, UInt(TIOCGWINSZ), &size) != 0 || size.ws_row < 3 || size.ws_col < 10 {
      size.ws_row = 24
      size.ws_col = 80
    }
    let rows = Int(size.ws_row)
    let cols = Int(size.ws_col)
    var lines: [String] = []
    for item in model.messages.suffix(rows * 2) {
      lines.append(contentsOf: format(item, width: cols))
    }
    let visible = lines.suffix(rows - 2)
    var out = "\u{1B}[?25l\u{1B}[H"
    for _ in 0..<(rows - 2 - visible.count) { out += "\u{1B}[K\r\n" }
    for line in visible { out += line + "\u{1B}[K\r\n" }
    let status = " " + statusText()
    let padded = String(status.prefix(cols)) + String(repeating: " ", count: max(0, cols - status.count))
    out += (colors ? "\u{1B}[7m" + padded + "\u{1B}[0m" : padded) + "\r\n"
    // The part of the line around the cursor that fits, and the cursor placed in it.
    let (characters, cursor) = screen.withLock { ($0.editor.characters, $0.editor.cursor) }
    let width = max(1, cols - 3)
    let first = max(0, cursor - width + 1)
    let shown = String(characters[first..<min(characters.count, first + width)])
    out += "> " + shown + "\u{1B}[K\u{1B}[\(rows);\(3 + cursor - first)H\u{1B}[?25h"
    FileHandle.standardOutput.write(Data(out.utf8))
  }

  private func statusText() -> String {
    let target = model.client?.endpoint.description ?? ""
    var text: String
    switch model.connectionState {
    case .idle, .connecting: text = "connecting to \(target)…"
    case .connected: text = "connected to \(target) as \(model.client?.confirmedName ?? name.value)"
    case .reconnecting(let attempt, let at):
      let left = max(0, Double((at - .now).components.attoseconds) / 1e18 + Double((at - .now).components.seconds))
      text = "reconnecting in " + String(format: "%.1f", left) + " s (attempt \(attempt))"
    case .disconnected(let reason): text = "disconnected: \(reason)"
    }
    if !model.isViable { text += " (not responding)" }
    return text + " · Ctrl-C quits"
  }

  /// The item as terminal lines at most `width` characters wide.
  private func format(_ item: ChatViewModel.Item, width: Int) -> [String] {
    let prefix: String
    switch item.kind {
    case .notice: prefix = ""
    case .message where item.isAction: prefix = "* " + LineDialect.escape(item.author) + " "
    case .message: prefix = item.author.isEmpty ? "" : LineDialect.escape(item.author) + ": "
    }
    let body = item.kind == .notice ? "* " + item.text.replacingOccurrences(of: "* ", with: "", options: .anchored) : item.text
    // Escaped as the line dialect escapes (``LineEscape``): no line break, and no control
    // (an escape sequence would move the cursor and draw over the transcript).
    let plain = Array(prefix + LineDialect.escape(body))
    var chunks: [String] = []
    var start = 0
    repeat {
      chunks.append(String(plain[start..<min(plain.count, start + width)]))
      start += width
    } while start < plain.count
    guard colors else { return chunks }
    if item.kind == .notice { return chunks.map { "\u{1B}[2m" + $0 + "\u{1B}[0m" } }
    if !prefix.isEmpty, chunks[0].hasPrefix(prefix) {
      let color = item.isMine ? "1;37" : Self.palette[Self.hash(item.author) % Self.palette.count]
      chunks[0] = "\u{1B}[\(color)m" + prefix + "\u{1B}[0m" + chunks[0].dropFirst(prefix.count)
    }
    return chunks
  }

  private static let palette = ["31", "32", "33", "34", "35", "36", "91", "92", "93", "94", "95", "96"]

  private static func hash(_ s: String) -> Int {
    var h: UInt32 = 2_166_136_261
    for b in s.utf8 { h = (h ^ UInt32(b)) &* 16_777_619 }
    return Int(h % 1_000_003)
  }
}
