/// Where ``DNSMessage/encode(compression:)`` may replace a name's tail with a pointer to an
/// earlier occurrence (RFC 1035 §4.1.4).
///
/// Pointers only go to offsets below 0x4000 (14 bits) and only to an exact earlier occurrence
/// (byte for byte, so a name's case survives). Bytes of ``DNSRecordData/unknown(_:_:)`` are never
/// touched. Any decoder reads every choice back.
public enum DNSCompression: Sendable, Hashable {
  /// No pointers at all.
  case none
  /// Unicast DNS rules: question and owner names and PTR targets. SRV targets (RFC 2782) and
  /// NSEC next names (RFC 4034 §4.1.1) stay whole.
  case standard
  /// mDNS rules (RFC 6762 §18.14), the default: as ``standard``, plus SRV targets and NSEC
  /// next names, which mDNS asks to compress.
  case multicast
}
