import Dispatch
import Foundation
import SwitchboardDiscovery
import SwitchboardIO
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The shell around a ``PeerSession`` for `switchboard peer`: one event loop owns the session
/// and the UDP sockets (IPv4 and, where possible, IPv6 on the same port); browser events,
/// advertiser events, stdin lines and signals hop onto it; the session's actions are carried
/// out there. ``run()`` returns the exit code once the session finishes.
final class PeerNode: UDPSocketDelegate, @unchecked Sendable {
  // Safety: `session`, `v4`, `v6`, `timer`, `advertiser` and `interfaceNames` are touched only on
  // `loop`'s thread (every entry point hops there with `execute`); `code` and `done` are
  // thread-safe.

  struct Options {
    var name: String
    var type: String
    var port: UInt16
    var hostName: String?
    var interfaceNames: [String]?
    var backend: DiscoveryBackend
    var session: PeerSession.Configuration
    var interactive: Bool
  }

  /// Why the node could not start (exit 1).
  struct StartError: Error, CustomStringConvertible {
    let description: String
  }

  private let options: Options
  private let logOptions: LogOptions
  private let loop: EventLoop
  private var session: PeerSession
  private var v4: UDPSocket?
  private var v6: UDPSocket?
  private var timer: Scheduled?
  /// Set on the loop before the first registration, for the host name it reports.
  private var advertiser: (any ServiceAdvertiser)?
  private var interfaceNames: [UInt32: String] = [:]
  private let code = Atomic<Int32>(ExitCode.ok)
  private let done = DispatchSemaphore(value: 0)

  /// The port both sockets are bound to.
  let port: UInt16

  /// Opens the loop and the sockets.
  /// - Throws: ``StartError`` when no socket can be bound.
  init(options: Options, logOptions: LogOptions) throws(StartError) {
    self.options = options
    self.logOptions = logOptions
    let loop: EventLoop
    do {
      loop = try EventLoop(index: 0)
    } catch {
      throw StartError(description: "event loop: \(error)")
    }
    self.loop = loop
    var v6Open = false
    let bound = loop.runAndWait { () -> Result<(UDPSocket, UDPSocket?), IOError> in
      Self.bind(port: options.port, loop: loop)
    }
    switch bound {
    case .success(let (v4, v6)):
      self.v4 = v4
      self.v6 = v6
      v6Open = v6 != nil
      port = UInt16(v4.localAddress.port)
    case .failure(let error):
      loop.shutdownGracefully()
      throw StartError(description: "cannot bind UDP port \(options.port): \(error)")
    }
    session = PeerSession(
      ownName: options.name, type: options.type, ipv6: v6Open, configuration: options.session)
    loop.runAndWait {
      self.v4?.delegate = self
      self.v6?.delegate = self
    }
  }

  /// Advertises, browses, reads stdin until the session finishes; then goodbyes.
  /// - Returns: the exit code.
  func run() -> Int32 {
    let log = logOptions.logger(label: "switchboard.peer")
    let advertiser: any ServiceAdvertiser
    let browser: any ServiceBrowser
    do {
      advertiser = try Discovery.advertiser(
        backend: options.backend,
        configuration: MDNSAdvertiser.Configuration(
          hostName: options.hostName, interfaceNames: options.interfaceNames, log: log)
      ) { [self] event in loop.execute { self.advertiserEvent(event) } }
    } catch {
      return failToStart(error)
    }
    // Its events hop onto the loop after this, so `advertiserEvent` finds it set.
    loop.execute { self.advertiser = advertiser }
    do {
      _ = try advertiser.register(MDNSService(instance: options.name, type: options.type, port: port))
      browser = try Discovery.browser(
        backend: options.backend, types: [options.type], interfaceNames: options.interfaceNames, log: log
      ) { [self] event in loop.execute { self.perform(self.session.browserEvent(event, now: .now())) } }
    } catch {
      advertiser.shutdown()
      return failToStart(error)
    }
    let names = Dictionary(browser.interfaces.map { ($0.index, $0.name) }, uniquingKeysWith: { a, _ in a })
    loop.execute { self.interfaceNames = names }
    if options.interactive {
      status(
        "peer '\(options.name)' on UDP port \(port): type a line and press Enter to send it to every peer"
          + (options.session.target.map { " (only to '\($0)')" } ?? "") + "; Ctrl-D quits")
    }
    StopSignals.install { [self] _ in loop.execute { self.perform(self.session.stop()) } }
    readInput()
    done.wait()
    browser.shutdown()
    advertiser.shutdown()
    close()
    return code.load(ordering: .relaxed)
  }

  private func failToStart(_ error: DiscoveryError) -> Int32 {
    close()
    // A backend this platform does not run (--mdns builtin on macOS) is bad usage.
    if error == .unsupported { return Usage.fail("peer", error.message) }
    Output.error("switchboard peer: \(error.message)")
    return ExitCode.failure
  }

  // MARK: Events (on the loop)

  private func advertiserEvent(_ event: MDNSEvent) {
    switch event {
    case .registered(_, let name):
      if name != session.table.ownName { perform(session.renamed(to: name, now: .now())) }
      let host = advertiser?.hostName ?? "?"
      status("advertised \(name).\(options.type).local on \(host).local:\(port)")
    case .renamed(nil, let from, let to):
      status("host name \(from).local is taken; now \(to).local")
    case .renamed(_, let from, let to):
      status("name '\(from)' is taken; trying '\(to)'")
      perform(session.renamed(to: to, now: .now()))
    case .failed(_, let error):
      Output.error("switchboard peer: \(error.message)")
      code.store(ExitCode.failure, ordering: .relaxed)
      perform(session.stop())
    case .warning:
      break  // the advertiser logs it (at warning, the default level)
    }
  }

  func socket(
    _ socket: UDPSocket, didReceive bytes: UnsafeRawBufferPointer, from sender: SocketAddress, truncated: Bool
  ) {
    perform(session.datagram(bytes, from: sender, now: .now()))
  }

  private func perform(_ actions: [PeerSessionAction]) {
    for action in actions {
      if let line = action.outputLine(interfaceName: { [interfaceNames] in interfaceNames[$0] ?? "\($0)" }) {
        Output.print(line)
      }
      switch action {
      case .send(let bytes, let peers):
        for peer in peers {
          let socket = peer.destination.family == AF_INET6 ? v6 : v4
          let sent = bytes.withUnsafeBytes { socket?.send($0, to: peer.destination) ?? false }
          if !sent {
            Output.error(
              "switchboard peer: could not send to \(peer.name) (\(peer.destination)): \(errnoText())")
          }
        }
      case .queued(let pending):
        if options.interactive { status("no peer yet: the line waits (\(pending) queued)") }
      case .refused(let line, let reason):
        Output.error("switchboard peer: not sent (\(reason)): \(line.prefix(60))")
      case .scheduleTimer(let at):
        timer?.cancel()
        timer = loop.scheduleLocal(at: at) { [self] in
          timer = nil
          perform(session.timerFired(now: .now()))
        }
      case .finish(let unsent):
        if unsent > 0 {
          Output.error("switchboard peer: \(unsent) line(s) found no peer within --wait and were not sent")
          code.store(ExitCode.failure, ordering: .relaxed)
        }
        timer?.cancel()
        done.signal()
      case .peerAppeared, .peerMoved, .peerLeft, .received:
        break
      }
    }
  }

  // MARK: Input, output, sockets

  /// Stdin's lines, read by a thread of their own (reads block), each handed to the loop.
  private func readInput() {
    let thread = Thread { [self] in
      while let line = readLine(strippingNewline: true) {
        loop.execute { self.perform(self.session.line(line, now: .now())) }
      }
      loop.execute { self.perform(self.session.inputEnded(now: .now())) }
    }
    thread.start()
  }

  /// A status line: stdout (`* …`) on a terminal, stderr in pipe mode so stdout carries only
  /// peers and messages.
  private func status(_ text: String) {
    if options.interactive { Output.print("* " + text) } else { Output.error("switchboard peer: " + text) }
  }

  private func errnoText() -> String { String(cString: strerror(errno)) }

  private func close() {
    loop.runAndWait {
      self.timer?.cancel()
      self.v4?.close()
      self.v6?.close()
      self.v4 = nil
      self.v6 = nil
    }
    loop.shutdownGracefully()
  }

  /// IPv4 on `port` (0: any), then IPv6 (`IPV6_V6ONLY`) on the same port when this host has
  /// IPv6. With port 0, a port free for IPv4 but taken for IPv6 is given up and another tried.
  private static func bind(port: UInt16, loop: EventLoop) -> Result<(UDPSocket, UDPSocket?), IOError> {
    var options = SocketOptions()
    options.reuseAddress = false
    var v6Options = options
    v6Options.v6Only = true
    for _ in 0..<8 {
      let v4: UDPSocket
      do {
        v4 = try UDPSocket(
          bindingTo: try SocketAddress(host: "0.0.0.0", port: Int(port)), options: options, loop: loop)
      } catch {
        return .failure(error)
      }
      do {
        let v6 = try UDPSocket(
          bindingTo: try SocketAddress(host: "::", port: v4.localAddress.port), options: v6Options, loop: loop
        )
        return .success((v4, v6))
      } catch {
        guard port == 0, error.kind == .addressInUse else { return .success((v4, nil)) }
        v4.close()
      }
    }
    return .failure(IOError(call: "bind", errno: EADDRINUSE, detail: "no port free for both IPv4 and IPv6"))
  }
}
