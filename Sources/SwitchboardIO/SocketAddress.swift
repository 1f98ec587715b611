#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An IPv4 or IPv6 socket address (address and port), hashable without allocation so a
/// UDP server can key its members by it.
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
  enum Storage: Hashable {
    case v4(address: UInt32, port: UInt16)  // both in network byte order
    case v6(high: UInt64, low: UInt64, scope: UInt32, port: UInt16)
  }
  let storage: Storage

  init(storage: Storage) { self.storage = storage }

  /// Parses a numeric IPv4 or IPv6 address (`"127.0.0.1"`, `"::1"`, `"[::1]"`);
  /// `"localhost"` means 127.0.0.1 and `""` or `"*"` the IPv4 wildcard.
  /// - Throws: ``IOError`` when `host` is not a numeric address.
  public init(host: String, port: Int) throws(IOError) {
    var name = host
    if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
    if name.isEmpty || name == "*" { name = "0.0.0.0" }
    if name == "localhost" { name = "127.0.0.1" }
    guard (0...65535).contains(port) else {
      throw IOError(call: "parse address", errno: EINVAL, detail: "port \(port)")
    }
    var v4 = in_addr()
    if inet_pton(AF_INET, name, &v4) == 1 {
      storage = .v4(address: v4.s_addr, port: UInt16(port).bigEndian)
      return
    }
    var v6 = in6_addr()
    if inet_pton(AF_INET6, name, &v6) == 1 {
      let (hi, lo) = withUnsafeBytes(of: &v6) { raw in
        (raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
      }
      storage = .v6(high: hi, low: lo, scope: 0, port: UInt16(port).bigEndian)
      return
    }
    throw IOError(call: "parse address", errno: EINVAL, detail: "'\(host)' is not a numeric IP address")
  }

  /// Resolves a host name (numeric addresses resolve without DNS) to its first address.
  /// - Throws: ``IOError`` with call `"getaddrinfo"` when the name does not resolve.
  public static func resolve(host: String, port: Int) throws(IOError) -> SocketAddress {
    if let numeric = try? SocketAddress(host: host, port: port) { return numeric }
    var hints = addrinfo()
    hints.ai_socktype = Socket.streamType
    var result: UnsafeMutablePointer<addrinfo>?
    let rc = getaddrinfo(host, String(port), &hints, &result)
    guard rc == 0, let first = result else {
      let message = String(cString: gai_strerror(rc))
      throw IOError(call: "getaddrinfo", errno: 0, detail: "\(host) (\(message))")
    }
    defer { freeaddrinfo(result) }
    guard let address = SocketAddress(first.pointee.ai_addr) else {
      throw IOError(call: "getaddrinfo", errno: EAFNOSUPPORT, detail: host)
    }
    return address
  }

  /// Reads a `sockaddr` of family AF_INET or AF_INET6.
  public init?(_ pointer: UnsafePointer<sockaddr>) {
    switch Int32(pointer.pointee.sa_family) {
    case AF_INET:
      let sin = UnsafeRawPointer(pointer).loadUnaligned(as: sockaddr_in.self)
      storage = .v4(address: sin.sin_addr.s_addr, port: sin.sin_port)
    case AF_INET6:
      var sin6 = UnsafeRawPointer(pointer).loadUnaligned(as: sockaddr_in6.self)
      let (hi, lo) = withUnsafeBytes(of: &sin6.sin6_addr) { raw in
        (raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
      }
      storage = .v6(high: hi, low: lo, scope: sin6.sin6_scope_id, port: sin6.sin6_port)
    default:
      return nil
    }
  }

  /// `AF_INET` or `AF_INET6`.
  public var family: Int32 {
    if case .v4 = storage { return AF_INET }
    return AF_INET6
  }

  /// The port in host byte order.
  public var port: Int {
    switch storage {
    case .v4(_, let port), .v6(_, _, _, let port): return Int(UInt16(bigEndian: port))
    }
  }

  /// The same address with another port.
  public func withPort(_ port: Int) -> SocketAddress {
    let p = UInt16(truncatingIfNeeded: port).bigEndian
    switch storage {
    case .v4(let a, _): return SocketAddress(storage: .v4(address: a, port: p))
    case .v6(let h, let l, let s, _): return SocketAddress(storage: .v6(high: h, low: l, scope: s, port: p))
    }
  }

  /// The same IPv6 address with scope (interface index) `scope`; IPv4 addresses are returned
  /// unchanged.
  public func withScope(_ scope: UInt32) -> SocketAddress {
    guard case .v6(let h, let l, _, let p) = storage else { return self }
    return SocketAddress(storage: .v6(high: h, low: l, scope: scope, port: p))
  }

  /// The IPv6 scope (interface index) of a link-local address, 0 otherwise and for IPv4.
  public var scope: UInt32 {
    if case .v6(_, _, let scope, _) = storage { return scope }
    return 0
  }

  /// The address bytes in network order: 4 for IPv4, 16 for IPv6.
  public var addressBytes: [UInt8] {
    switch storage {
    case .v4(let address, _): return withUnsafeBytes(of: address) { Array($0) }
    case .v6(let high, let low, _, _): return withUnsafeBytes(of: high) { Array($0) } + withUnsafeBytes(of: low) { Array($0) }
    }
  }

  /// The numeric address without the port (`"127.0.0.1"`, `"::1"`).
  public var ipAddress: String {
    var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
    switch storage {
    case .v4(let address, _):
      var a = in_addr(s_addr: address)
      inet_ntop(AF_INET, &a, &buffer, socklen_t(buffer.count))
    case .v6(let high, let low, _, _):
      var a = in6_addr()
      withUnsafeMutableBytes(of: &a) { raw in
        raw.storeBytes(of: high, toByteOffset: 0, as: UInt64.self)
        raw.storeBytes(of: low, toByteOffset: 8, as: UInt64.self)
      }
      inet_ntop(AF_INET6, &a, &buffer, socklen_t(buffer.count))
    }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// `true` for 0.0.0.0 and ::.
  public var isWildcard: Bool {
    switch storage {
    case .v4(let a, _): return a == 0
    case .v6(let h, let l, _, _): return h == 0 && l == 0
    }
  }

  public var description: String {
    family == AF_INET6 ? "[\(ipAddress)]:\(port)" : "\(ipAddress):\(port)"
  }

  /// Calls `body` with this address as a `sockaddr` and its length.
  public func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws -> R) rethrows -> R {
    switch storage {
    case .v4(let address, let port):
      var sin = sockaddr_in()
      sin.sin_family = sa_family_t(AF_INET)
      sin.sin_port = port
      sin.sin_addr = in_addr(s_addr: address)
      return try withUnsafePointer(to: &sin) {
        try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          try body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
    case .v6(let high, let low, let scope, let port):
      var sin6 = sockaddr_in6()
      sin6.sin6_family = sa_family_t(AF_INET6)
      sin6.sin6_port = port
      sin6.sin6_scope_id = scope
      withUnsafeMutableBytes(of: &sin6.sin6_addr) { raw in
        raw.storeBytes(of: high, toByteOffset: 0, as: UInt64.self)
        raw.storeBytes(of: low, toByteOffset: 8, as: UInt64.self)
      }
      return try withUnsafePointer(to: &sin6) {
        try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          try body($0, socklen_t(MemoryLayout<sockaddr_in6>.size))
        }
      }
    }
  }
}
