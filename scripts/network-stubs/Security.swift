// A stand-in for the Security API that Sources/SwitchboardClient/NetworkTLS.swift uses, for
// scripts/network-stub-check: signatures as Apple documents them. The CF types are Swift
// types here, so the bridging casts (`as CFString`, `as CFArray`, `as Data`) type-check but
// are not proven by it; the verify block is @Sendable, stricter than the SDK's.
import Foundation
public typealias CFString = String
public typealias CFArray = [AnyObject]
public typealias CFData = Data
public typealias CFTypeRef = AnyObject
public typealias CFAllocator = AnyObject
public typealias OSStatus = Int32
public final class CFError {}
public final class SecTrust {}
public final class SecPolicy {}
public final class SecCertificate {}
public protocol OS_sec_protocol_options: AnyObject {}
public protocol OS_sec_trust: AnyObject {}
public protocol OS_sec_protocol_metadata: AnyObject {}
public typealias sec_protocol_options_t = any OS_sec_protocol_options
public typealias sec_trust_t = any OS_sec_trust
public typealias sec_protocol_metadata_t = any OS_sec_protocol_metadata
public typealias sec_protocol_verify_complete_t = (Bool) -> Void
public typealias sec_protocol_verify_t = @Sendable (sec_protocol_metadata_t, sec_trust_t, @escaping sec_protocol_verify_complete_t) -> Void
public enum tls_protocol_version_t: UInt16 { case TLSv10 = 0x0301, TLSv11, TLSv12, TLSv13, DTLSv10, DTLSv12 }
public func sec_protocol_options_set_tls_server_name(_ options: sec_protocol_options_t, _ server_name: UnsafePointer<CChar>) {}
public func sec_protocol_options_set_min_tls_protocol_version(_ options: sec_protocol_options_t, _ version: tls_protocol_version_t) {}
public func sec_protocol_options_add_tls_application_protocol(_ options: sec_protocol_options_t, _ application_protocol: UnsafePointer<CChar>) {}
public func sec_protocol_options_set_verify_block(_ options: sec_protocol_options_t, _ verify_block: @escaping sec_protocol_verify_t, _ verify_block_queue: DispatchQueue) {}
public func sec_trust_copy_ref(_ trust: sec_trust_t) -> Unmanaged<SecTrust> { fatalError() }
public func SecTrustSetPolicies(_ trust: SecTrust, _ policies: CFTypeRef) -> OSStatus { 0 }
public func SecPolicyCreateSSL(_ server: Bool, _ hostname: CFString?) -> SecPolicy { SecPolicy() }
public func SecTrustSetAnchorCertificates(_ trust: SecTrust, _ anchorCertificates: CFArray) -> OSStatus { 0 }
public func SecTrustSetAnchorCertificatesOnly(_ trust: SecTrust, _ anchorCertificatesOnly: Bool) -> OSStatus { 0 }
public func SecTrustEvaluateWithError(_ trust: SecTrust, _ error: UnsafeMutablePointer<CFError?>?) -> Bool { true }
public func SecTrustCopyCertificateChain(_ trust: SecTrust) -> CFArray? { nil }
public func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData { Data() }
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? { nil }
