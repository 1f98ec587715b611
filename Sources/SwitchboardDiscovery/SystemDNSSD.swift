import CDNSSD

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The system's DNS-SD library (`dns_sd.h`), found at run time: avahi's compatibility library
/// on Linux, libSystem on Darwin. Whether it loads and whether its daemon answers are asked
/// once per process.
enum SystemDNSSD {
  /// Where the calls are looked for, in order (`nil`: the process's own symbols, which on
  /// Darwin take in libSystem's libsystem_dnssd: `dlopen(NULL)` searches every loaded image).
  #if canImport(Darwin)
    static let libraries: [String?] = [nil, "/usr/lib/libSystem.B.dylib"]
  #else
    static let libraries: [String?] = ["libdns_sd.so.1", "libdns_sd.so"]
  #endif

  /// `kDNSServiceFlagsAdd`: in a browse or query reply, the instance or record appeared.
  static let flagAdd: UInt32 = 0x2
  /// `kDNSServiceInterfaceIndexAny`.
  static let anyInterface: UInt32 = 0
  /// The domain every call here uses (multicast DNS).
  static let domain = "local."

  /// The library, loaded once.
  static let library: Result<Void, DiscoveryError> = load(from: libraries)

  /// `kDNSServiceErr_PolicyDenied`: the system refused local network access (Local Network
  /// privacy on Apple platforms).
  static let policyDenied: Int32 = -65570

  /// How long a failed probe of the daemon is believed before the next ask probes again: a
  /// daemon that was starting, or a Local Network permission granted meanwhile, is found by
  /// the next browse instead of never in this process.
  static let probeRetryInterval: Duration = .seconds(1)

  /// The probe of the daemon, remembered: a success for good, a failure for
  /// ``probeRetryInterval``.
  static let daemonProbe = RetriedProbe(retryAfter: probeRetryInterval) { probe() }

  /// The library and its daemon (``Discovery/systemDaemonAnswers``): the remembered answer,
  /// or a new probe when the last one failed over ``probeRetryInterval`` ago.
  static var daemon: Result<Void, DiscoveryError> { daemonProbe.result() }

  /// Loads the first of `candidates` that has every call used here.
  static func load(from candidates: [String?]) -> Result<Void, DiscoveryError> {
    var reasons: [String] = []
    for candidate in candidates {
      var message: UnsafePointer<CChar>?
      if sb_dnssd_load(candidate, &message) == 0 { return .success(()) }
      reasons.append(message.map { String(cString: $0) } ?? "\(candidate ?? "libSystem"): not loadable")
    }
    #if canImport(Darwin)
      let hint = ""
    #else
      let hint = " (install libavahi-compat-libdnssd1, and run avahi-daemon)"
    #endif
    return .failure(
      DiscoveryError.systemUnavailable.with(
        "no DNS-SD library\(hint): \(reasons.joined(separator: "; "))"))
  }

  /// Loads the library (once) and asks its daemon for a browse, stopped at once: it succeeds
  /// only when the daemon answers (avahi's library connects to avahi-daemon over the system
  /// D-Bus for every call; `DBUS_SYSTEM_BUS_ADDRESS` picks the bus).
  static func probe() -> Result<Void, DiscoveryError> {
    if case .failure(let error) = library { return .failure(error) }
    var ref: sb_dnssd_ref?
    let code = sb_dnssd_browse(
      &ref, 0, anyInterface, "_switchboard._tcp", domain, { _, _, _, _, _, _, _, _ in }, nil)
    if code == 0, let ref {
      sb_dnssd_deallocate(ref)
      return .success(())
    }
    return .failure(probeFailure(code))
  }

  /// Why the probe's browse was refused with `code`: ``DiscoveryError/localNetworkDenied`` for
  /// `kDNSServiceErr_PolicyDenied` (the daemon answered, and said no), else
  /// ``DiscoveryError/systemUnavailable`` naming the daemon.
  static func probeFailure(_ code: Int32) -> DiscoveryError {
    if code == policyDenied {
      return DiscoveryError.localNetworkDenied.with("\(daemonName) refused to browse: \(name(of: code))")
    }
    return DiscoveryError.systemUnavailable.with("\(daemonName) does not answer\(busHint): \(name(of: code))")
  }

  #if canImport(Darwin)
    static let daemonName = "mDNSResponder"
    static var busHint: String { "" }
  #else
    static let daemonName = "avahi-daemon"
    static var busHint: String {
      let bus = getenv("DBUS_SYSTEM_BUS_ADDRESS").map { String(cString: $0) }
      return " on the system D-Bus (\(bus ?? "unix:path=/run/dbus/system_bus_socket"))"
    }
  #endif

  /// The ``DiscoveryError`` for a DNS-SD error code from `call`. Codes that say a parameter
  /// was refused become `badParameter`; a name conflict ``DiscoveryError/nameConflict``;
  /// `kDNSServiceErr_PolicyDenied` ``DiscoveryError/localNetworkDenied``; everything else (the daemon gone, refused, out of memory…)
  /// ``DiscoveryError/systemUnavailable``.
  static func error(_ code: Int32, call: String, badParameter: DiscoveryError = .invalidServiceType)
    -> DiscoveryError
  {
    let text = "\(call): \(name(of: code))"
    switch code {
    case -65548: return DiscoveryError.nameConflict.with(text)
    case -65540, -65549: return badParameter.with(text)
    case policyDenied: return DiscoveryError.localNetworkDenied.with(text)
    default: return DiscoveryError.systemUnavailable.with(text)
    }
  }

  /// The constant's name and number (`kDNSServiceErr_NameConflict (-65548)`).
  static func name(of code: Int32) -> String {
    let names: [Int32: String] = [
      0: "NoError", -65537: "Unknown", -65538: "NoSuchName", -65539: "NoMemory", -65540: "BadParam",
      -65541: "BadReference", -65542: "BadState", -65543: "BadFlags", -65544: "Unsupported",
      -65545: "NotInitialized", -65547: "AlreadyRegistered", -65548: "NameConflict", -65549: "Invalid",
      -65551: "Incompatible", -65552: "BadInterfaceIndex", -65553: "Refused", -65554: "NoSuchRecord",
      -65562: "Transient", -65563: "ServiceNotRunning", -65568: "Timeout", -65569: "DefunctConnection",
      -65570: "PolicyDenied",
    ]
    return "kDNSServiceErr_\(names[code] ?? "Unknown") (\(code))"
  }
}
