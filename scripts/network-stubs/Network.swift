// A stand-in for the part of Network.framework that Sources/SwitchboardClient uses, for
// scripts/network-stub-check: each declaration has the signature Apple's documentation gives
// it (labels, optionality, @Sendable handlers, enum cases), no behaviour. The classes are
// deliberately not Sendable, the worst an SDK can be, so that the check also proves the
// client's `@preconcurrency import Network` covers every handler. Add what the client starts
// to use, from the documentation, not from the client's code.
import Foundation
import Dispatch
@_exported import Security

public final class NWInterface { public var name: String { "" }; public var index: Int { 0 } }
public struct IPv4Address { public var rawValue: Data { Data() } }
public struct IPv6Address { public var rawValue: Data { Data() }; public var interface: NWInterface? { nil } }
public enum NWError: Error, CustomDebugStringConvertible {
  case posix(POSIXErrorCode), dns(Int32), tls(Int32)
  public var debugDescription: String { "" }
}
public enum NWEndpoint {
  public enum Host { case name(String, NWInterface?), ipv4(IPv4Address), ipv6(IPv6Address)
    public init(_ string: String) { self = .name(string, nil) } }
  public struct Port: RawRepresentable { public var rawValue: UInt16; public init?(rawValue: UInt16) { self.rawValue = rawValue } }
  case hostPort(host: Host, port: Port)
  case service(name: String, type: String, domain: String, interface: NWInterface?)
  case unix(path: String)
  case url(URL)
}
public class NWProtocolOptions {}
public class NWProtocolDefinition {}
public class NWProtocolMetadata {}
public enum NWProtocolTCP { public final class Options: NWProtocolOptions {
  public override init() {}
  public var noDelay = false; public var connectionTimeout = 0; public var enableKeepalive = false; public var keepaliveIdle = 0 } }
public enum NWProtocolTLS { public final class Options: NWProtocolOptions {
  public override init() {}
  public var securityProtocolOptions: sec_protocol_options_t { fatalError() } } }
public enum NWProtocolWebSocket {
  public static var definition: NWProtocolDefinition { NWProtocolDefinition() }
  public enum Version { case version13 }
  public enum Opcode { case cont, text, binary, close, ping, pong }
  public enum CloseCode { public enum Defined: UInt16 { case normalClosure = 1000, goingAway, protocolError }
    case protocolCode(Defined), applicationCode(UInt16), privateCode(UInt16) }
  public final class Options: NWProtocolOptions { public init(_ version: Version = .version13) {}
    public var autoReplyPing = false; public var maximumMessageSize = 0 }
  public final class Metadata: NWProtocolMetadata {
    public init(opcode: Opcode) { self.opcode = opcode }
    public let opcode: Opcode
    public var closeCode: CloseCode = .protocolCode(.normalClosure)
    public var additionalServerHeaders: [(String, String)]? { nil }
    @preconcurrency public func setPongHandler(_ queue: DispatchQueue, handler: @escaping @Sendable (NWError?) -> Void) {}
  }
}
public final class NWParameters {
  public init() {}
  public convenience init(tls: NWProtocolTLS.Options?, tcp: NWProtocolTCP.Options = .init()) { self.init() }
  public static var udp: NWParameters { NWParameters() }
  public final class ProtocolStack { public var applicationProtocols: [NWProtocolOptions] = [] }
  public var defaultProtocolStack = ProtocolStack()
}
public struct NWPath {
  public enum Status { case satisfied, unsatisfied, requiresConnection }
  public enum UnsatisfiedReason { case notAvailable, cellularDenied, wifiDenied, localNetworkDenied, vpnInactive }
  public var status: Status { .satisfied }
  public var unsatisfiedReason: UnsatisfiedReason { .notAvailable }
  public var availableInterfaces: [NWInterface] { [] }
  public var remoteEndpoint: NWEndpoint? { nil }
}
public final class NWConnection {
  public enum State { case setup, waiting(NWError), preparing, ready, failed(NWError), cancelled }
  public final class ContentContext {
    public init(identifier: String, expiration: UInt64 = 0, priority: Double = 0.5, isFinal: Bool = false,
                antecedent: ContentContext? = nil, metadata: [NWProtocolMetadata]? = []) {}
    public static let defaultMessage = ContentContext(identifier: "")
    public func protocolMetadata(definition: NWProtocolDefinition) -> NWProtocolMetadata? { nil }
  }
  public enum SendCompletion { case contentProcessed(@Sendable (NWError?) -> Void), idempotent }
  public init(to: NWEndpoint, using: NWParameters) { endpoint = to; parameters = using }
  public let endpoint: NWEndpoint
  public let parameters: NWParameters
  public var state: State { .setup }
  @preconcurrency public var stateUpdateHandler: (@Sendable (State) -> Void)?
  public var currentPath: NWPath? { nil }
  public func start(queue: DispatchQueue) {}
  public func cancel() {}
  public func metadata(definition: NWProtocolDefinition) -> NWProtocolMetadata? { nil }
  public func send(content: Data?, contentContext: ContentContext = .defaultMessage, isComplete: Bool = true, completion: SendCompletion) {}
  @preconcurrency public func receive(minimumIncompleteLength: Int, maximumLength: Int,
    completion: @escaping @Sendable (Data?, ContentContext?, Bool, NWError?) -> Void) {}
  @preconcurrency public func receiveMessage(completion: @escaping @Sendable (Data?, ContentContext?, Bool, NWError?) -> Void) {}
}
public final class NWPathMonitor {
  public init() {}
  @preconcurrency public var pathUpdateHandler: (@Sendable (NWPath) -> Void)?
  public func start(queue: DispatchQueue) {}
  public func cancel() {}
}
public struct NWTXTRecord { public var dictionary: [String: String] { [:] } }
public final class NWBrowser {
  public enum Descriptor { case bonjour(type: String, domain: String?), bonjourWithTXTRecord(type: String, domain: String?) }
  public enum State { case setup, ready, failed(NWError), cancelled, waiting(NWError) }
  public struct Result: Hashable {
    public enum Metadata: Hashable { case bonjour(NWTXTRecord), none
      public static func == (a: Metadata, b: Metadata) -> Bool { true }; public func hash(into h: inout Hasher) {} }
    public enum Change: Hashable { case identical }
    public var endpoint: NWEndpoint { fatalError() }
    public var metadata: Metadata { .none }
    public static func == (a: Result, b: Result) -> Bool { true }; public func hash(into h: inout Hasher) {}
  }
  public init(for descriptor: Descriptor, using parameters: NWParameters) {}
  @preconcurrency public var stateUpdateHandler: (@Sendable (State) -> Void)?
  @preconcurrency public var browseResultsChangedHandler: (@Sendable (Set<Result>, Set<Result.Change>) -> Void)?
  public func start(queue: DispatchQueue) {}
  public func cancel() {}
}
