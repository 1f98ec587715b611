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
                            [--token TOKEN] [--ca-file PEM | --insecure]
           switchboard chat --service NAME [--type TYPE] [--mdns BACKEND] [--name NAME] …

    A chat client. URL is ws://host:1337/ or wss://host/ (WebSocket), tcp://host:8080
    or tls://host:8443 (lines), udp://host:8081 (datagrams), or a DNS-SD service by
    name: dnssd://NAME._switchboard._tcp.local (spaces as %20; the type picks the
    transport, see --type), looked up over mDNS before every connect and reconnect, so
    a server that restarts on another port or address is found again.
    \(ChatURL.help)
    Interactive on a terminal: type a message and press Enter; Ctrl-C or Ctrl-D quits.
    With --pipe, or when stdin is not a terminal: stdin lines are sent, received
    messages are printed as AUTHOR: TEXT, and the command exits at end of input.
      --wait SECONDS     pipe: keep trying to reach a server that is down for up to
                         SECONDS before giving up (default 0: give up at the first
                         failed connect, as send does); once connected, a lost
                         connection is retried up to 8 times
    Colours follow NO_COLOR and are off when stdout is not a terminal.
    --log-level LEVEL (trace … critical) writes the client library's log to stderr, as
    text or, with --log-format json, JSON lines (default: no log). --version prints the
    version and the commit it was built from.
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
      Output.error("switchboard chat: \(error)")
      return ExitCode.usage
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
      Output.error("switchboard chat: \(error)")
      return ExitCode.usage
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
    let client = ChatClient(
      endpoint: target.endpoint, name: name, room: args.value("room"), configuration: configuration)
    // The terminal screen runs on the main thread, which is the main actor's (the view
    // model's) as long as the screen's loop turns the run loop.
    return interactive
      ? MainActor.assumeIsolated { ChatTerminalUI(client: client).run() }
      : runPipe(client, limits: ChatPipeLimits(wait: .seconds(wait)))
  }

  // MARK: Pipe mode

  private static func runPipe(_ client: ChatClient, limits: ChatPipeLimits) -> Int32 {
    let code = Atomic<Int32>(ExitCode.ok)
    let done = DispatchSemaphore(value: 0)
    let lines = stdinLines()
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
      do {
        try await client.run { session in
          await withTaskGroup(of: Void.self) { group in
            group.addTask {
              var resuming = false
              var limits = limits
              for await event in session.events {
                switch event {
                case .message(let m) where !m.isMine: Output.print(line(m))
                case .history(let messages, _, _):
                  // The first backlog is not what a pipe asked for; after a reconnect the
                  // history is what was missed meanwhile, and dropping it lost messages
                  // (found by benchmarks/soak.sh).
                  if resuming { for m in messages where !m.isMine { Output.print(line(m)) } }
                  resuming = true
                case .connected: limits.connected()
                case .members: answer.yield()
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
            }
            group.addTask {
              for await line in lines {
                do {
                  try await session.send(line)
                } catch {
                  report(error)
                  return
                }
              }
              // Cancelled: the client ended first (refused, given up) and said why.
              if Task.isCancelled { return }
              // One round trip before leaving: the server has then handled every line sent
              // (a line send completes once written), and a server that refuses this client
              // (no token: it answers the first line and closes) has said so, which ends the
              // client and this group with the reason.
              try? await session.client.requestMembers()
              await withTaskGroup(of: Void.self) { wait in
                wait.addTask { for await _ in answered { break } }
                wait.addTask { try? await Task.sleep(for: .seconds(5)) }
                await wait.next()
                wait.cancelAll()
              }
              session.close()
            }
            // Whichever ends first (the input, or the client: refused, given up) ends both.
            await group.next()
            session.close()
            group.cancelAll()
          }
        }
      } catch {
        report(error)
      }
      done.signal()
    }
    done.wait()
    return code.load(ordering: .relaxed)
  }

  /// A received message as pipe mode prints it, `AUTHOR: TEXT`: escaped as the line dialect
  /// escapes it (``LineEscape``), so a text with a line break in it is one line of output
  /// and cannot print a line that reads as another author's.
  static func line(_ m: ChatClient.Message) -> String {
    LineDialect.escape(m.author) + ": " + LineDialect.escape(m.text)
  }

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

/// The original terminal settings, for the signal handler that restores them.
nonisolated(unsafe) private var savedTermios = termios()
nonisolated(unsafe) private var termiosSaved = false

private func restoreTerminal() {
  guard termiosSaved else { return }
  var t = savedTermios
  tcsetattr(0, TCSAFLUSH, &t)
  let leave = "\u{1B}[?25h\u{1B}[?1049l"
  _ = leave.withCString { write(1, $0, strlen($0)) }
}

/// The interactive screen: transcript, status line, input line. On the main actor, with the
/// view model; the input thread only edits ``Screen`` and hands lines to the main actor.
@MainActor
final class ChatTerminalUI: Sendable {
  private struct Screen {
    var input: [UInt8] = []
    var dirty = true
    var quit = false
  }

  private let client: ChatClient
  private let model: ChatViewModel
  private let screen = Mutex(Screen())
  private let colors: Bool

  init(client: ChatClient) {
    self.client = client
    self.model = ChatViewModel(client: client, maxUpdatesPerSecond: 30, maxItems: 2000)
    self.colors = ProcessInfo.processInfo.environment["NO_COLOR"].map(\.isEmpty) ?? true
  }

  func run() -> Int32 {
    enterRawMode()
    for sig in [SIGINT, SIGTERM, SIGHUP] {
      signal(sig) { _ in
        restoreTerminal()
        _exit(130)
      }
    }
    model.start()
    let input = Thread { [self] in readInput() }
    input.start()
    var lastUpdates = -1
    // A refusal stops the client for good: leave with its reason rather than a dead screen.
    while !screen.withLock({ $0.quit }) && client.refusal == nil {
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
    model.stop()
    restoreTerminal()
    if let refusal = client.refusal {
      Output.error("switchboard chat: \(CLIFailure.describe(ChatClientError.refused(refusal)))")
      return ExitCode.refused
    }
    return ExitCode.ok
  }

  private func enterRawMode() {
    tcgetattr(0, &savedTermios)
    termiosSaved = true
    var raw = savedTermios
    raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
    raw.c_iflag &= ~tcflag_t(IXON | ICRNL | BRKINT | INPCK | ISTRIP)
    // c_cc is a tuple whose length and indices differ (VMIN is 6 on Linux, 16 on Darwin).
    withUnsafeMutableBytes(of: &raw.c_cc) { cc in
      cc[Int(VMIN)] = 1
      cc[Int(VTIME)] = 0
    }
    tcsetattr(0, TCSAFLUSH, &raw)
    FileHandle.standardOutput.write(Data("\u{1B}[?1049h".utf8))
  }

  // MARK: Input

  nonisolated private func readInput() {
    var byte: UInt8 = 0
    var escape = 0
    while true {
      let n = read(0, &byte, 1)
      if n <= 0 {
        if n < 0 && errno == EINTR { continue }
        screen.withLock { $0.quit = true }
        return
      }
      if escape == 1 {
        escape = byte == UInt8(ascii: "[") || byte == UInt8(ascii: "O") ? 2 : 0
        continue
      }
      if escape == 2 {
        if (0x40...0x7E).contains(byte) { escape = 0 }
        continue
      }
      switch byte {
      case 0x03:  // Ctrl-C
        screen.withLock { $0.quit = true }
        return
      case 0x04:  // Ctrl-D on an empty line
        if screen.withLock({ $0.input.isEmpty }) {
          screen.withLock { $0.quit = true }
          return
        }
      case 0x1B:
        escape = 1
      case 0x0D, 0x0A:
        let line = screen.withLock { s -> String in
          defer {
            s.input = []
            s.dirty = true
          }
          return String(decoding: s.input, as: UTF8.self)
        }
        if !line.trimmingCharacters(in: .whitespaces).isEmpty {
          let model = self.model
          Task { @MainActor in
            do { try await model.send(line) } catch { model.receive(.error(error as? ChatClientError ?? .closed)) }
          }
        }
      case 0x7F, 0x08:
        screen.withLock { s in
          var text = String(decoding: s.input, as: UTF8.self)
          if !text.isEmpty { text.removeLast() }
          s.input = Array(text.utf8)
          s.dirty = true
        }
      case 0x15:  // Ctrl-U
        screen.withLock { s in
          s.input = []
          s.dirty = true
        }
      default:
        if byte >= 0x20 || byte == 0x09 {
          screen.withLock { s in
            s.input.append(byte == 0x09 ? 0x20 : byte)
            s.dirty = true
          }
        }
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
    let input = screen.withLock { String(decoding: $0.input, as: UTF8.self) }
    let shown = String(input.suffix(max(1, cols - 3)))
    out += "> " + shown + "\u{1B}[K\u{1B}[?25h"
    FileHandle.standardOutput.write(Data(out.utf8))
  }

  private func statusText() -> String {
    let target = client.endpoint.description
    var text: String
    switch model.connectionState {
    case .idle, .connecting: text = "connecting to \(target)…"
    case .connected: text = "connected to \(target) as \(client.name)"
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
