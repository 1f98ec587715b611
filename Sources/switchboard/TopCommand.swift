import Dispatch
import Foundation
import SwitchboardAuth
import SwitchboardHTTP
import SwitchboardIO
import SwitchboardTLS
import SwitchboardWire
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `switchboard top URL`: the admin console's live view (`serve --admin-password`) in a
/// terminal, read from the same `/admin/events` stream the page reads, with the same password.
enum TopCommand {
  static let help = """
    usage: switchboard top URL [--room ROOM] [--password-file F] [--ca-file PEM | --insecure]
                           [--plain] [--timeout SECONDS]

    Shows a running server's admin console (`serve --admin-password`) in a terminal: the
    node, its connections by transport, messages and deliveries per second, loop lag and
    memory; every node (under --redis); the rooms, busiest first; and with --room a room's
    members and its messages as they are sent. On a terminal it redraws in place once a
    second (q or Ctrl-C quits); when stdout is not a terminal, or with --plain, it prints one
    block of plain lines per second. NO_COLOR (any value) turns colours off.

      URL                 the server's HTTP or HTTPS port: http://HOST:PORT, https://HOST:PORT
                          or HOST:PORT (http)
      --room ROOM         follow ROOM: its members and its messages as they are sent
      --password-file F   read the admin password from F (its first line); default: the
                          SWITCHBOARD_ADMIN_PASSWORD environment variable, else it is asked
                          for on the terminal
      --ca-file PEM       https://: trust the CA certificates in PEM
      --insecure          https://: do not verify the server's certificate at all
      --plain             plain lines even on a terminal
      --timeout SECONDS   give up when the server says nothing this long (default 15)

    Exit codes: 0 quit (q, Ctrl-C) or the server ended the stream (its `end` event: logged
    out, the session expired, the server shutting down); 1 no connection, or the connection
    was lost; 2 refused (wrong password, too many attempts, the console off); 64 bad usage.
    """

  static let valued: Set<String> = ["room", "password-file", "ca-file", "timeout"]

  /// How a run ends.
  enum Outcome: Error {
    /// `q` or Ctrl-C.
    case quit
    /// The server's `end` event, with its reason.
    case ended(String)
    /// The connection closed without an `end` event.
    case closed
    /// Could not connect, or the stream broke.
    case failed(String)
    /// The server refused (a 4xx answer), in words.
    case refused(String)

    var exitCode: Int32 {
      switch self {
      case .quit, .ended: ExitCode.ok
      case .closed, .failed: ExitCode.failure
      case .refused: ExitCode.refused
      }
    }
  }

  static func run(_ argv: [String]) -> Int32 {
    let args: Arguments
    let target: APICommand.Target
    let room: String?
    let timeout: Int
    do {
      args = try Arguments(argv, valued: valued, booleans: ["help", "plain", "insecure"])
      if let code = args.helpOrVersion(help) { return code }
      guard args.positional.count == 1 else {
        throw Arguments.UsageError(
          description: args.positional.isEmpty
            ? "needs the server's URL" : "unexpected argument '\(args.positional[1])'")
      }
      var url = args.positional[0]
      if !url.contains("://") { url = "http://" + url }
      guard url.lowercased().hasPrefix("http://") || url.lowercased().hasPrefix("https://") else {
        throw Arguments.UsageError(
          description:
            "URL must be http://HOST:PORT, https://HOST:PORT or HOST:PORT, not '\(args.positional[0])'")
      }
      target = try APICommand.Target(url: url, caFile: args.value("ca-file"), insecure: args.flag("insecure"))
      room = try args.value("room").map { raw in
        guard let valid = RoomName.validate(raw) else {
          throw Arguments.UsageError(description: "--room: '\(raw)' is not a valid room name")
        }
        return valid
      }
      timeout = try args.int("timeout", in: 1...3600) ?? 15
    } catch {
      return Usage.fail("top", "\(error)")
    }
    let password: String
    switch readPassword(args) {
    case .success(let found): password = found
    case .failure(let problem): return Usage.fail("top", problem.description)
    }
    let terminal = !args.flag("plain") && isatty(1) == 1
    let outcome = TopSession(target: target, room: room, timeout: .seconds(timeout), terminal: terminal)
      .run(password: password)
    switch outcome {
    case .quit: break
    case .ended(let reason): Output.error("switchboard top: the server ended the stream (\(reason))")
    case .closed: Output.error("switchboard top: the server closed the connection")
    case .failed(let reason): Output.error("switchboard top: \(reason)")
    case .refused(let reason): Output.error("switchboard top: refused: \(reason)")
    }
    return outcome.exitCode
  }

  /// The password: `--password-file`'s first line, else `SWITCHBOARD_ADMIN_PASSWORD`, else
  /// asked on the terminal (stdin) without echo.
  static func readPassword(_ args: Arguments) -> Result<String, Arguments.UsageError> {
    if let path = args.value("password-file") {
      guard let data = FileManager.default.contents(atPath: path) else {
        return .failure(.init(description: "--password-file: cannot read \(path)"))
      }
      let first = String(decoding: data, as: UTF8.self).split(
        separator: "\n", omittingEmptySubsequences: false
      ).first
      let password = String(first ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
      guard !password.isEmpty else {
        return .failure(.init(description: "--password-file: \(path) is empty"))
      }
      return .success(password)
    }
    if let password = ProcessInfo.processInfo.environment["SWITCHBOARD_ADMIN_PASSWORD"], !password.isEmpty {
      return .success(password)
    }
    guard isatty(0) == 1 else {
      return .failure(
        .init(description: "no password: set SWITCHBOARD_ADMIN_PASSWORD or give --password-file"))
    }
    guard let typed = TerminalMode.readSecretLine(prompt: "admin password: "), !typed.isEmpty else {
      return .failure(.init(description: "no password given"))
    }
    return .success(typed)
  }
}

/// One run of `top`: log in, read the event stream, draw; ends with an ``TopCommand/Outcome``.
///
/// The stream's bytes arrive on the exchange's loop thread, keys on a thread of their own;
/// both go through ``state`` (one lock), and the first outcome wins.
final class TopSession: Sendable {
  /// Where the run stands.
  private enum Phase {
    case starting
    case streaming
    /// An outcome is known; nothing more is drawn.
    case finished(TopCommand.Outcome)
  }

  private struct State {
    var phase = Phase.starting
    var reader = ServerSentEventReader()
    var view: TopView
    var endReason: String?
  }

  private let target: APICommand.Target
  private let room: String?
  private let timeout: Duration
  private let terminal: Bool
  private let colors: Bool
  private let state: Mutex<State>
  private let done = DispatchSemaphore(value: 0)

  init(target: APICommand.Target, room: String?, timeout: Duration, terminal: Bool) {
    self.target = target
    self.room = room
    self.timeout = timeout
    self.terminal = terminal
    colors = terminal && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
    state = Mutex(State(view: TopView(room: room)))
  }

  func run(password: String) -> TopCommand.Outcome {
    let address: SocketAddress
    let tls: (context: TLSContext, serverName: String)?
    do {
      (address, tls) = try target.resolve()
    } catch {
      return .failed(error.description)
    }
    let cookie: String
    switch login(password, address: address, tls: tls) {
    case .success(let session): cookie = session
    case .failure(let outcome): return outcome
    }
    if terminal {
      TerminalMode.enterRaw()
      TerminalMode.restoreOnSignals()
      if isatty(0) == 1 { Thread { [self] in readKeys() }.start() }
      draw()
    }
    var path = "/admin/events"
    if let room { path += "?room=" + APICommand.percentEncoded(room) }
    let request =
      "GET \(path) HTTP/1.1\r\nHost: \(target.hostHeader)\r\nCookie: \(cookie)\r\n"
      + "Accept: text/event-stream\r\nConnection: close\r\n\r\n"
    Thread { [self] in
      let result = HTTPExchange.perform(
        Array(request.utf8), to: address, tls: tls, timeout: timeout, stream: { [self] in received($0) })
      switch result {
      case .failure(let failure): finish(.failed(failure.description))
      case .success(let (head, body)) where head.status != 200:
        finish(Self.refusal(head, body, what: "the event stream"))
      case .success:
        finish(state.withLock { $0.endReason }.map { .ended($0) } ?? .closed)
      }
    }.start()
    done.wait()
    if terminal { TerminalMode.restore() }
    return state.withLock { s in
      if case .finished(let outcome) = s.phase { return outcome }
      return .closed
    }
  }

  /// `POST /admin/login`: the session cookie (`name=value`), or how it failed.
  private func login(
    _ password: String, address: SocketAddress, tls: (context: TLSContext, serverName: String)?
  ) -> Result<String, TopCommand.Outcome> {
    let body = Array(JSONValue.object(["password": .string(password)]).encoded().utf8)
    let request =
      "POST /admin/login HTTP/1.1\r\nHost: \(target.hostHeader)\r\nContent-Type: application/json\r\n"
      + "Content-Length: \(body.count)\r\nAccept: application/json\r\nConnection: close\r\n\r\n"
    switch HTTPExchange.perform(Array(request.utf8) + body, to: address, tls: tls, timeout: timeout) {
    case .failure(let failure):
      return .failure(.failed(failure.description))
    case .success(let (head, answer)):
      guard head.status == 200 else { return .failure(Self.refusal(head, answer, what: "the login")) }
      for value in head.headers.values("Set-Cookie") {
        let pair = value.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
        if pair.hasPrefix("switchboard_admin="), pair.count > "switchboard_admin=".count {
          return .success(pair)
        }
      }
      return .failure(.failed("the server's login answer set no session cookie"))
    }
  }

  /// A non-200 answer in words: the documented refusals (exit 2), else a failure (exit 1).
  private static func refusal(_ head: HTTPResponseHead, _ body: [UInt8], what: String) -> TopCommand.Outcome {
    let error = (try? JSONValue(parsing: body))?.objectValue?["error"]?.objectValue
    let code = error?["code"]?.stringValue
    let message = error?["message"]?.stringValue
    switch (head.status, code) {
    case (401, "wrong_password"):
      return .refused("wrong password")
    case (429, _):
      let wait = head.headers["Retry-After"].map { "; try again in \($0) s" } ?? ""
      return .refused("too many failed logins from this address\(wait)")
    case (404, _):
      return .refused("the admin console is off on this server (start serve with --admin-password)")
    case (400..<500, _):
      return .refused(message ?? code ?? "\(what) was answered \(head.status)")
    default:
      return .failed("\(what) was answered \(head.status)" + (message.map { ": \($0)" } ?? ""))
    }
  }

  /// Ends the run with `outcome`, unless it has ended already.
  private func finish(_ outcome: TopCommand.Outcome) {
    let first = state.withLock { s in
      if case .finished = s.phase { return false }
      s.phase = .finished(outcome)
      return true
    }
    if first { done.signal() }
  }

  // MARK: The stream

  /// Bytes of the event stream (on the exchange's loop).
  private func received(_ bytes: [UInt8]) {
    let failure: String? = state.withLock { s in
      if case .finished = s.phase { return nil }
      s.phase = .streaming
      s.reader.append(bytes)
      do {
        while let event = try s.reader.next() {
          switch event.type {
          case "snapshot":
            if s.view.take(snapshotJSON: event.data) { show(s.view) }
          case "end":
            let reason = (try? JSONValue(parsing: Array(event.data.utf8)))?.objectValue?["reason"]?
              .stringValue
            s.endReason = reason ?? "ended"
          default:
            break  // `history` and anything newer: the terminal view draws no charts.
          }
        }
      } catch {
        return "the event stream broke: \(error)"
      }
      return nil
    }
    if let failure { finish(.failed(failure)) }
  }

  // MARK: Drawing

  /// Draws the view (called with the lock held, so no frame follows the terminal's restore).
  private func show(_ view: TopView) {
    guard terminal else {
      let lines = view.lines(TopView.Layout(columns: 1000, rows: nil, colors: false))
      Output.print(lines.joined(separator: "\n") + "\n")
      return
    }
    var size = winsize()
    if ioctl(1, UInt(TIOCGWINSZ), &size) != 0 || size.ws_row < 3 || size.ws_col < 10 {
      size.ws_row = 24
      size.ws_col = 80
    }
    let rows = Int(size.ws_row)
    var lines = view.lines(TopView.Layout(columns: Int(size.ws_col), rows: rows - 1, colors: colors))
    let hint = "q quits"
    lines.append(colors ? "\u{1B}[2m" + hint + "\u{1B}[0m" : hint)
    let frame = "\u{1B}[?25l\u{1B}[H" + lines.map { $0 + "\u{1B}[K" }.joined(separator: "\r\n") + "\u{1B}[J"
    FileHandle.standardOutput.write(Data(frame.utf8))
  }

  private func draw() {
    state.withLock { s in show(s.view) }
  }

  /// Keys, on a thread of their own: `q`, `Q`, Ctrl-C or Ctrl-D end the run; the end of
  /// input too.
  private func readKeys() {
    var byte: UInt8 = 0
    while true {
      let n = read(0, &byte, 1)
      if n < 0 && errno == EINTR { continue }
      if n <= 0 || [UInt8(ascii: "q"), UInt8(ascii: "Q"), 3, 4].contains(byte) {
        finish(.quit)
        return
      }
    }
  }
}
