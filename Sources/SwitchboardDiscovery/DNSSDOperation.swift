import CDNSSD
import SwitchboardDNS
import SwitchboardIO

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One DNS-SD operation (a `DNSServiceRef`: a registration, browse, resolve or record query)
/// served by an event loop: the library's socket is watched for readability and each
/// readable turn runs `DNSServiceProcessResult`, which calls back with a ``Reply``. Made,
/// used and cancelled on the loop's thread only.
///
/// The loop closes what it watches, and the library closes its own socket, so the loop
/// watches a duplicate of it.
final class DNSSDOperation: Selectable {
  /// What a callback reported.
  enum Reply {
    /// The registration is live under `name` (avahi picks another name after a conflict).
    case registered(name: String)
    /// A browsed instance appeared (`added`) or went away, on `interface`.
    case browsed(added: Bool, interface: UInt32, name: String, type: String, domain: String)
    /// A resolved instance: its SRV target (with its trailing dot), port and TXT rdata.
    case resolved(interface: UInt32, host: String, port: UInt16, txt: [UInt8])
    /// A record of the queried name appeared (`added`) or went away.
    case record(added: Bool, interface: UInt32, type: UInt16, rdata: [UInt8])
    /// The operation failed; it is cancelled.
    case failed(DiscoveryError)
  }

  private enum State {
    case starting
    case active(ref: OpaquePointer, fd: Int32)
    case cancelled
  }

  private let loop: EventLoop
  private let call: String
  private var state = State.starting
  private let onReply: (Reply) -> Void

  private init(loop: EventLoop, call: String, onReply: @escaping (Reply) -> Void) {
    self.loop = loop
    self.call = call
    self.onReply = onReply
  }

  /// `DNSServiceRegister` of `service` on `interface` (0: all), on the daemon's host name.
  static func register(
    _ service: MDNSService, interface: UInt32, on loop: EventLoop, onReply: @escaping (Reply) -> Void
  ) throws(DiscoveryError) -> DNSSDOperation {
    // An empty TXT is one zero byte (RFC 6763 §6.1), never a zero-length record.
    let txt = service.txt.wire
    return try start("DNSServiceRegister", on: loop, badParameter: .invalidInstanceName, onReply) {
      ref, context in
      sb_dnssd_register(
        ref, 0, interface, service.instance, service.type, SystemDNSSD.domain, nil, service.port.bigEndian,
        UInt16(clamping: txt.count), txt,
        { _, _, error, name, _, _, context in
          DNSSDOperation.deliver(to: context, error: error) {
            .registered(name: name.map { String(cString: $0) } ?? "")
          }
        }, context)
    }
  }

  /// `DNSServiceBrowse` for `type` on `interface` (0: all).
  static func browse(
    _ type: String, interface: UInt32, on loop: EventLoop, onReply: @escaping (Reply) -> Void
  ) throws(DiscoveryError) -> DNSSDOperation {
    try start("DNSServiceBrowse", on: loop, onReply) { ref, context in
      sb_dnssd_browse(
        ref, 0, interface, type, SystemDNSSD.domain,
        { _, flags, interface, error, name, type, domain, context in
          DNSSDOperation.deliver(to: context, error: error) {
            .browsed(
              added: flags & SystemDNSSD.flagAdd != 0, interface: interface, name: DNSSDOperation.text(name),
              type: DNSSDOperation.text(type),
              domain: DNSSDOperation.text(domain))
          }
        }, context)
    }
  }

  /// `DNSServiceResolve` of one instance on `interface`.
  static func resolve(
    name: String, type: String, domain: String, interface: UInt32, on loop: EventLoop,
    onReply: @escaping (Reply) -> Void
  ) throws(DiscoveryError) -> DNSSDOperation {
    try start("DNSServiceResolve", on: loop, onReply) { ref, context in
      sb_dnssd_resolve(
        ref, 0, interface, name, type, domain,
        { _, _, interface, error, _, host, port, length, txt, context in
          DNSSDOperation.deliver(to: context, error: error) {
            .resolved(
              interface: interface, host: DNSSDOperation.text(host), port: UInt16(bigEndian: port),
              txt: txt.map { Array(UnsafeBufferPointer(start: $0, count: Int(length))) } ?? [])
          }
        }, context)
    }
  }

  /// `DNSServiceQueryRecord` for records of `type` (class IN) of `name` on `interface`.
  static func query(
    _ name: String, type: DNSRecordType, interface: UInt32, on loop: EventLoop,
    onReply: @escaping (Reply) -> Void
  ) throws(DiscoveryError) -> DNSSDOperation {
    try start("DNSServiceQueryRecord", on: loop, onReply) { ref, context in
      sb_dnssd_query_record(
        ref, 0, interface, name, type.rawValue, DNSClass.internet.rawValue,
        { _, flags, interface, error, _, type, _, length, rdata, _, context in
          DNSSDOperation.deliver(to: context, error: error) {
            .record(
              added: flags & SystemDNSSD.flagAdd != 0, interface: interface, type: type,
              rdata: rdata.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(length))) } ?? [])
          }
        }, context)
    }
  }

  private static func start(
    _ call: String, on loop: EventLoop, badParameter: DiscoveryError = .invalidServiceType,
    _ onReply: @escaping (Reply) -> Void,
    _ body: (UnsafeMutablePointer<OpaquePointer?>, UnsafeMutableRawPointer) -> Int32
  ) throws(DiscoveryError) -> DNSSDOperation {
    loop.assertInEventLoop()
    if case .failure(let error) = SystemDNSSD.library { throw error }
    let operation = DNSSDOperation(loop: loop, call: call, onReply: onReply)
    var ref: OpaquePointer?
    // The context is unretained: the loop holds the operation while it is registered, and
    // no callback runs after `cancel()` deallocates the ref.
    let code = body(&ref, Unmanaged.passUnretained(operation).toOpaque())
    guard code == 0, let ref else {
      throw SystemDNSSD.error(code, call: call, badParameter: badParameter)
    }
    let fd = sb_dnssd_socket(ref)
    let watched = fd >= 0 ? dup(fd) : -1
    guard watched >= 0 else {
      sb_dnssd_deallocate(ref)
      throw DiscoveryError.systemUnavailable.with("\(call): no socket to watch (errno \(errno))")
    }
    do {
      try loop.register(operation, fd: watched, interest: .read)
    } catch {
      close(watched)
      sb_dnssd_deallocate(ref)
      throw DiscoveryError.systemUnavailable.with("\(call): \(error)")
    }
    operation.state = .active(ref: ref, fd: watched)
    return operation
  }

  /// Ends the operation (a registration is withdrawn, with goodbyes sent by the daemon).
  /// Safe to call more than once, also from inside its own reply.
  func cancel() {
    loop.assertInEventLoop()
    guard case .active(let ref, let fd) = state else {
      state = .cancelled
      return
    }
    state = .cancelled
    loop.deregisterAndClose(fd: fd)
    sb_dnssd_deallocate(ref)
  }

  /// Runs the waiting replies (a bounded number per turn). Each call first checks that the
  /// socket is readable: `DNSServiceProcessResult` blocks when nothing waits, and a stale
  /// readiness event for a reused descriptor number must not reach it.
  func handle(_ events: ReadyEvents) {
    withExtendedLifetime(self) {
      for _ in 0..<16 {
        guard case .active(let ref, let fd) = state, Self.hasInput(fd) else { return }
        let code = sb_dnssd_process(ref)
        guard code != 0 else { continue }
        guard case .active = state else { return }
        cancel()
        onReply(.failed(SystemDNSSD.error(code, call: "DNSServiceProcessResult after \(call)")))
        return
      }
    }
  }

  private static func hasInput(_ fd: Int32) -> Bool {
    var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    return poll(&entry, 1, 0) == 1 && entry.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0
  }

  private func deliver(_ reply: Reply) {
    guard case .active = state else { return }  // avahi may still dispatch after a cancel
    if case .failed = reply { cancel() }
    onReply(reply)
  }

  private static func deliver(to context: UnsafeMutableRawPointer?, error: Int32, _ reply: () -> Reply) {
    guard let context else { return }
    let operation = Unmanaged<DNSSDOperation>.fromOpaque(context).takeUnretainedValue()
    operation.deliver(error == 0 ? reply() : .failed(SystemDNSSD.error(error, call: operation.call)))
  }

  private static func text(_ pointer: UnsafePointer<CChar>?) -> String {
    pointer.map { String(cString: $0) } ?? ""
  }
}

@available(*, unavailable)
extension DNSSDOperation: Sendable {}
